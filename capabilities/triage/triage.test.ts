import t from 'tap'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// The ai SDK mock answers (guarantees) unless a subtest moves to the fake OpenAI-compatible server (happy path).
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const PRICE = 3
const ticket = 'I was charged twice this month and nobody answers my emails. Fix it today or I cancel.'
const categories = ['Billing', 'Bug', 'Access']
const teams = ['Finance Ops', 'Engineering']
const answer = (over: Record<string, unknown> = {}) => ({
  priority: 'high',
  category: 'Billing',
  team: 'Finance Ops',
  sentiment: 'negative',
  slaRisk: true,
  summary: '  Double charge, customer threatens to cancel.  ',
  suggestedFirstResponse: 'Sorry about the double charge; I am refunding it now.',
  ...over,
})

t.test("category and team are the caller's, as spelled", async (t) => {
  cap.reply(answer())
  const call = await cap.call({ ticket, categories, teams })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    priority: 'high',
    category: 'Billing',
    team: 'Finance Ops',
    sentiment: 'negative',
    slaRisk: true,
    summary: 'Double charge, customer threatens to cancel.',
    suggestedFirstResponse: 'Sorry about the double charge; I am refunding it now.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  t.match(cap.prompts[0], /Finance Ops/)
  t.match(cap.prompts[0], /charged twice/)
})

t.test('without lists: free category, suggested team; null team and null first response are omitted', async (t) => {
  cap.reply(
    answer({ category: '  payments  ', team: null, suggestedFirstResponse: null, priority: 'low', slaRisk: false, sentiment: 'mixed' }),
  )
  const { res } = await cap.call({ ticket })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    priority: 'low',
    category: 'payments',
    sentiment: 'mixed',
    slaRisk: false,
    summary: 'Double charge, customer threatens to cancel.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  cap.reply(answer({ team: 'Billing desk' }))
  const again = await cap.call({ ticket, categories })
  t.equal(again.res.status, 200, again.res.text)
  t.equal(again.res.body.team, 'Billing desk', 'no teams given: the model may suggest one')
  t.equal(again.res.body.category, 'Billing')
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['category not in categories', { ticket, categories, teams }, answer({ category: 'Refunds' })],
    ['team not in teams', { ticket, categories, teams }, answer({ team: 'Support' })],
    ['category in another case', { ticket, categories, teams }, answer({ category: 'billing' })],
    ['priority outside the enum', { ticket }, answer({ priority: 'critical' })],
    ['sentiment outside the enum', { ticket }, answer({ sentiment: 'angry' })],
    ['slaRisk not a boolean', { ticket }, answer({ slaRisk: 'yes' })],
    ['empty category', { ticket }, answer({ category: '   ' })],
    ['empty summary', { ticket }, answer({ summary: ' ' })],
    ['fields missing', { ticket }, { priority: 'high' }],
  ]
  for (const [why, body, a] of broken) {
    cap.reply(a)
    await cap.expectRefused(t, body, { status: 502, code: 'inference_failed', why })
  }
})

capabilitySuite(t, cap, {
  badInput: [
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
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  let seen: FakeTextRequest | undefined
  await cap.useFake({ text: (req) => ((seen = req), answer({ priority: 'urgent' })) })
  const call = await cap.call({ ticket, categories, teams }, { funds: 5 })
  cap.expectCharged(t, call)
  const { res } = call
  t.match(res.body, { priority: 'urgent', category: 'Billing', team: 'Finance Ops', sentiment: 'negative', slaRisk: true })
  const schema = seen?.jsonSchema as any
  t.same(schema?.properties.category.enum, categories, 'the categories are the enum of the answer schema')
  t.same(schema?.properties.team.anyOf, [{ type: 'string', enum: teams }, { type: 'null' }], 'teams as the enum, or null for none')
  t.equal(seen?.body.text.format.strict, true, 'sent in strict mode')
  t.match(seen?.prompt, /charged twice/)
})
