import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import { lengthProblem } from './handler.ts'

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
const text = 'Our platform provides users with the ability to efficiently manage all of their Acme Invoices in one single place.'
const short = 'Manage all your Acme Invoices in one place.'

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/rewrite', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('lengthProblem measures, it does not trust', async (t) => {
  t.equal(lengthProblem('shorter', 'a b c d', 'a b c'), null)
  t.match(lengthProblem('shorter', 'a b c', 'a b c'), /not shorter/)
  t.match(lengthProblem('shorter', 'abc', '  abc   \n\n  '), /not shorter/, 'padding does not count')
  t.equal(lengthProblem('longer', 'abc', 'abcd'), null)
  t.match(lengthProblem('longer', 'abcd', 'a    b'), /not longer/, 'whitespace runs count once')
  t.equal(lengthProblem('same', 'x'.repeat(100), 'y'.repeat(120)), null)
  t.match(lengthProblem('same', 'x'.repeat(100), 'y'.repeat(121)), /same length/)
  t.equal(lengthProblem('same', 'Hi', 'Hello there, friend'), null, 'short texts get 20 characters of slack')
  t.equal(lengthProblem(undefined, 'a', 'a much longer text'), null)
})

t.test('a rewrite that keeps the promises', async (t) => {
  let prompt = ''
  reply = (p) => ((prompt = p), { rewritten: `  ${short}\n`, changes: [' Cut filler ', 'Cut filler', '', 'Spoke to the reader'] })
  const { res, ledger } = await call({ text, voice: 'plain', goal: 'clarity', audience: 'CFOs', length: 'shorter', preserve: ['Acme Invoices', 'not in the text'] })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    rewritten: short,
    changes: ['Cut filler', 'Spoke to the reader'],
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  t.equal(ledger.balance, 10 - PRICE)
  for (const s of ['plain', 'clarity', 'CFOs', 'shorter', 'Acme Invoices']) t.match(prompt, s)
  t.notMatch(prompt, 'not in the text', 'a preserve phrase that is not in the text is not demanded')
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, Record<string, unknown>, unknown]> = [
    ['"shorter" but longer', { text, length: 'shorter' }, { rewritten: `${text} Really.`, changes: ['added emphasis'] }],
    ['"shorter" but the same text', { text, length: 'shorter' }, { rewritten: text, changes: [] }],
    ['"longer" but shorter', { text, length: 'longer' }, { rewritten: short, changes: ['cut'] }],
    ['"same" but a third of it', { text, length: 'same' }, { rewritten: short, changes: ['cut'] }],
    ['a preserved phrase changed', { text, preserve: ['Acme Invoices'] }, { rewritten: 'Manage all your ACME invoices in one place.', changes: [] }],
    ['empty rewrite (blank)', { text }, { rewritten: '   ', changes: [] }],
    ['changes not a list', { text }, { rewritten: short, changes: 'cut filler' }],
    ['no rewritten field', { text }, { changes: [] }],
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
    ['no text', { voice: 'plain' }],
    ['empty text', { text: '' }],
    ['text over 50,000 characters', { text: 'x'.repeat(50_001) }],
    ['length outside the enum', { text, length: 'tiny' }],
    ['voice over 2,000 characters', { text, voice: 'v'.repeat(2001) }],
    ['goal not a string', { text, goal: 3 }],
    ['51 preserve phrases', { text, preserve: Array.from({ length: 51 }, (_, i) => `p${i}`) }],
    ['empty preserve phrase', { text, preserve: [''] }],
    ['unknown field', { text, tone: 'warm' }],
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
  fakeReply = (req) => ((seen = req), { rewritten: short, changes: ['Cut filler'] })
  const { res, ledger } = await call({ text, length: 'shorter', voice: 'plain' }, 4)
  t.equal(res.status, 200, res.text)
  t.same(res.body, { rewritten: short, changes: ['Cut filler'], usage: { credits: PRICE, balanceRemaining: 4 - PRICE } })
  t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [4 - PRICE, 0, 4 - PRICE])
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /efficiently manage/)
  t.match(seen?.system, /shorter/)
})
