import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const text = 'My card was charged twice for the same order, and the app crashes when I open my invoices.'
const labels = ['billing', 'technical', 'Shipping']

t.test("the label is one of the caller's, in the caller's spelling (an enum in the answer schema, issue 15); charged 2", async (t) => {
  cap.reply({ label: 'billing', confidence: 0.93, rationale: 'A duplicate charge.\nSecond line dropped.' })
  const call = await cap.call({ text, labels })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    label: 'billing',
    confidence: 0.93,
    rationale: 'A duplicate charge.',
    usage: { credits: 2, balanceRemaining: 8, livemode: true },
  })
  t.match(cap.prompts[0], /Allowed labels: \[\\"billing\\",\\"technical\\",\\"Shipping\\"\]/, 'the taxonomy reaches the model')
})

t.test('multi: every label from the taxonomy, the best one first, no repeats', async (t) => {
  cap.reply({ label: 'technical', labels: ['billing', 'technical', 'Shipping'], confidence: 0.8, rationale: 'Both.' })
  const { res } = await cap.call({ text, labels, multi: true })
  t.equal(res.status, 200, res.text)
  t.same(res.body.labels, ['technical', 'billing', 'Shipping'])
  t.equal(res.body.label, 'technical')
  cap.reply({ label: 'technical', labels: ['billing', 'refunds'], confidence: 0.8, rationale: 'Both.' })
  await cap.expectRefused(
    t,
    { text, labels, multi: true },
    { status: 502, code: 'inference_failed', why: 'an invented label in labels (twice)' },
  )
})

t.test('a label outside the taxonomy is a failed call, free', async (t) => {
  cap.reply({ label: 'refunds', confidence: 0.9, rationale: 'x' })
  await cap.expectRefused(t, { text, labels }, { status: 502, code: 'inference_failed', why: 'label "refunds"' })
  cap.reply({ label: 'billing', confidence: 1.7, rationale: 'x' })
  await cap.expectRefused(t, { text, labels }, { status: 502, code: 'inference_failed', why: 'confidence above 1 (twice)' })
})

t.test('issue 16: labels that differ only in case are ambiguous: 400 before any model call, free', async (t) => {
  // Before: ["Billing", "billing"] was accepted, and the model's "billing" could only ever map to one of them.
  cap.forbidModel(t)
  const call = await cap.expectRefused(t, { text, labels: ['Billing', 'billing'] }, { why: 'labels differing in case' })
  t.same(call.res.body.error.details, [
    { path: '/labels/1', message: '"billing" repeats another label (labels are matched case-insensitively)' },
  ])
  t.match(call.res.body.error, { requestId: String })
  await cap.expectRefused(t, { text, labels: ['billing', ' billing '] }, { why: 'labels differing in spaces' })
  await cap.expectRefused(t, { text, labels: ['billing', '  '] }, { why: 'a blank label' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no text', { labels }],
    ['empty text', { text: '', labels }],
    ['no labels', { text }],
    ['one label', { text, labels: ['billing'] }],
    ['identical labels', { text, labels: ['billing', 'billing'] }],
    ['label too long', { text, labels: ['x'.repeat(201), 'y'] }],
    ['201 labels', { text, labels: Array.from({ length: 201 }, (_, i) => `l${i}`) }],
    ['multi not a boolean', { text, labels, multi: 'yes' }],
    ['unknown property', { text, labels, threshold: 0.5 }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: () => ({ label: 'technical', confidence: 0.7, rationale: 'The app crashes.' }) })
  const call = await cap.call({ text, labels })
  cap.expectCharged(t, call)
  t.equal(call.res.body.label, 'technical')
})
