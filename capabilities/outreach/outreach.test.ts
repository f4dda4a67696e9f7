import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest)

const lead = { name: 'Dana Ruiz', title: 'VP Finance', company: 'Northwind Logistics', links: { linkedin: 'https://www.linkedin.com/in/dana' } }
const product = 'Ledgerly: invoice capture and three-way matching.'
const step = (day: number, extra: object = {}) => ({ day, subject: `Subject ${day}`, message: `Message for day ${day}`, ...extra })

t.test('exactly `steps` steps, days strictly increasing, the caller\'s channel on every step', async (t) => {
  cap.reply({ sequence: [step(1), step(3), step(7)], personalizationPoints: ['Hiring AP clerks', ' hiring AP clerks ', ''] })
  const call = await cap.call({ lead, product, steps: 3, sender: { name: 'Sam' } })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.sequence.map((s: any) => [s.day, s.channel, s.subject]), [[1, 'email', 'Subject 1'], [3, 'email', 'Subject 3'], [7, 'email', 'Subject 7']])
  t.same(res.body.personalizationPoints, ['Hiring AP clerks'], 'points trimmed, deduplicated, empty dropped')
  t.match(cap.prompts[0], 'exactly 3 emails')
  t.match(cap.prompts[0], 'Northwind Logistics')
})

t.test('steps defaults to 3; linkedin steps carry no subject', async (t) => {
  cap.reply({ sequence: [{ day: 1, message: 'Hi' }, { day: 2, message: 'Again' }, { day: 9, message: 'Last' }], personalizationPoints: [] })
  const { res } = await cap.call({ lead: 'Dana, VP Finance at Northwind', product, channel: 'linkedin' })
  t.equal(res.status, 200, res.text)
  t.same(res.body.sequence, [
    { day: 1, channel: 'linkedin', message: 'Hi' },
    { day: 2, channel: 'linkedin', message: 'Again' },
    { day: 9, channel: 'linkedin', message: 'Last' },
  ])
})

t.test('model answers that break the promises are failed calls, charged nothing', async (t) => {
  const cases: Array<[string, unknown, object?]> = [
    ['one step too many', { sequence: [step(1), step(2), step(3), step(4)], personalizationPoints: [] }],
    ['one step too few', { sequence: [step(1), step(2)], personalizationPoints: [] }],
    ['days going backwards', { sequence: [step(1), step(5), step(3)], personalizationPoints: [] }],
    ['two steps on the same day', { sequence: [step(1), step(4), step(4)], personalizationPoints: [] }],
    ['day 0', { sequence: [step(0), step(4), step(5)], personalizationPoints: [] }],
    ['an email without a subject', { sequence: [step(1), step(2, { subject: '  ' }), step(3)], personalizationPoints: [] }],
    ['an empty message', { sequence: [step(1), step(2, { message: '\n ' }), step(3)], personalizationPoints: [] }],
    ['a subject on linkedin', { sequence: [step(1), step(2), step(3)], personalizationPoints: [] }, { channel: 'linkedin' }],
    ['not JSON', 'Sure! Here is your sequence.'],
  ]
  for (const [why, answer, extra] of cases) {
    cap.reply(answer)
    await cap.expectRefused(t, { lead, product, steps: 3, ...extra }, { status: 502, code: 'inference_failed', why })
  }
})

t.test('bad input is 400 invalid_request and charges nothing', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['no lead', { product }],
    ['no product', { lead }],
    ['steps 0', { lead, product, steps: 0 }],
    ['steps 11', { lead, product, steps: 11 }],
    ['steps 2.5', { lead, product, steps: 2.5 }],
    ['channel sms', { lead, product, channel: 'sms' }],
    ['empty lead', { lead: '', product }],
    ['lead too long', { lead: 'x'.repeat(20_001), product }],
    ['lead object too wide', { lead: Object.fromEntries(Array.from({ length: 61 }, (_, i) => [`k${i}`, 'v'])), product }],
    ['lead value too long', { lead: { notes: 'x'.repeat(4001) }, product }],
    ['lead nested too deep', { lead: { a: { b: { c: 1 } } }, product }],
    ['unknown sender field', { lead, product, sender: { email: 'x@y.z' } }],
    ['unknown field', { lead, product, tone: 'warm' }],
  ]
  for (const [why, body] of bad) await cap.expectRefused(t, body, { why })
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => ({ sequence: [step(1), step(4)], personalizationPoints: ['VP Finance'] }) })
  const call = await cap.call({ lead, product, steps: 2 }, { funds: 10 })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sequence: [
      { day: 1, channel: 'email', subject: 'Subject 1', message: 'Message for day 1' },
      { day: 4, channel: 'email', subject: 'Subject 4', message: 'Message for day 4' },
    ],
    personalizationPoints: ['VP Finance'],
    usage: { credits: 6, balanceRemaining: 4 },
  })
  t.equal(fake.requests[0]?.path, '/v1/responses')
})
