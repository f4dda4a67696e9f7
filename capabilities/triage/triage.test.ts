import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'

// One app per file; the text model is the ai SDK mock (guarantees) or the fake OpenAI server (happy path).
let reply: (prompt: string) => unknown = () => ({})
let fakeReply: (req: FakeTextRequest) => unknown = () => undefined
let viaFake = false
const fake = await startFakeOpenAI({ text: (req) => fakeReply(req) })
t.teardown(() => fake.close())
const mock = mockProvider((p) => reply(p))
const wire = fakeServerProvider(fake.baseURL)
const provider: ModelProvider = { ...mock, language: () => (viaFake ? wire : mock).language() }
const app = await startTestApp(t, { provider })

const PRICE = 3
const ticket = 'I was charged twice this month and nobody answers my emails. Fix it today or I cancel.'
const categories = ['Billing', 'Bug', 'Access']
const teams = ['Finance Ops', 'Engineering']
const answer = (over: Record<string, unknown> = {}) => ({
  priority: 'high',
  category: 'billing',
  team: 'finance ops',
  sentiment: 'negative',
  slaRisk: true,
  summary: '  Double charge, customer threatens to cancel.  ',
  suggestedFirstResponse: 'Sorry about the double charge; I am refunding it now.',
  ...over,
})

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/triage', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('category and team come back in the caller spelling', async (t) => {
  let prompt = ''
  reply = (p) => ((prompt = p), answer())
  const { res, ledger } = await call({ ticket, categories, teams })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    priority: 'high',
    category: 'Billing',
    team: 'Finance Ops',
    sentiment: 'negative',
    slaRisk: true,
    summary: 'Double charge, customer threatens to cancel.',
    suggestedFirstResponse: 'Sorry about the double charge; I am refunding it now.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  t.equal(ledger.balance, 10 - PRICE)
  t.match(prompt, /Finance Ops/)
  t.match(prompt, /charged twice/)
})

t.test('without lists: free category, suggested team; null team and null first response are omitted', async (t) => {
  reply = () => answer({ category: '  payments  ', team: null, suggestedFirstResponse: null, priority: 'low', slaRisk: false, sentiment: 'mixed' })
  const { res } = await call({ ticket })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    priority: 'low',
    category: 'payments',
    sentiment: 'mixed',
    slaRisk: false,
    summary: 'Double charge, customer threatens to cancel.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  reply = () => answer({ team: 'Billing desk' })
  const again = await call({ ticket, categories })
  t.equal(again.res.status, 200, again.res.text)
  t.equal(again.res.body.team, 'Billing desk', 'no teams given: the model may suggest one')
  t.equal(again.res.body.category, 'Billing')
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['category not in categories', { ticket, categories, teams }, answer({ category: 'Refunds' })],
    ['team not in teams', { ticket, categories, teams }, answer({ team: 'Support' })],
    ['priority outside the enum', { ticket }, answer({ priority: 'critical' })],
    ['sentiment outside the enum', { ticket }, answer({ sentiment: 'angry' })],
    ['slaRisk not a boolean', { ticket }, answer({ slaRisk: 'yes' })],
    ['empty category', { ticket }, answer({ category: '   ' })],
    ['empty summary', { ticket }, answer({ summary: ' ' })],
    ['fields missing', { ticket }, { priority: 'high' }],
  ]
  for (const [why, body, a] of broken) {
    reply = () => a
    const { res, ledger } = await call(body)
    t.equal(res.status, 502, why)
    t.equal(res.body.error?.code, 'inference_failed', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const bad: Array<[string, unknown]> = [
    ['no ticket', { categories }],
    ['empty ticket', { ticket: '' }],
    ['ticket over 500,000 characters', { ticket: 'x'.repeat(500_001) }],
    ['ticket not a string', { ticket: 42 }],
    ['categories not strings', { ticket, categories: [1] }],
    ['empty categories', { ticket, categories: [] }],
    ['201 categories', { ticket, categories: Array.from({ length: 201 }, (_, i) => `c${i}`) }],
    ['duplicate teams', { ticket, teams: ['a', 'a'] }],
    ['teams equal but for case', { ticket, teams: ['Support', 'support'] }],
    ['a team over 200 characters', { ticket, teams: ['t'.repeat(201)] }],
    ['unknown field', { ticket, priority: 'high' }],
  ]
  for (const [why, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, why)
    t.equal(res.body.error?.code, 'invalid_request', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => void (viaFake = false))
  let seen: FakeTextRequest | undefined
  fakeReply = (req) => ((seen = req), answer({ priority: 'urgent' }))
  const { res, ledger } = await call({ ticket, categories, teams }, 5)
  t.equal(res.status, 200, res.text)
  t.match(res.body, { priority: 'urgent', category: 'Billing', team: 'Finance Ops', sentiment: 'negative', slaRisk: true })
  t.same(res.body.usage, { credits: PRICE, balanceRemaining: 5 - PRICE })
  t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [5 - PRICE, 0, 5 - PRICE])
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /charged twice/)
})
