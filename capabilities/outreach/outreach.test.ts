import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest)

const lead = {
  name: 'Dana Ruiz',
  title: 'VP Finance',
  company: 'Northwind Logistics',
  links: { linkedin: 'https://www.linkedin.com/in/dana' },
}
const product = 'Ledgerly: invoice capture and three-way matching.'
const step = (n: number, extra: object = {}) => ({ subject: `Subject ${n}`, message: `Message ${n}`, ...extra })
/** A model answer: the first day, the gaps, and one step per day. */
const answer = (days: number[], steps: object[] = days.map((_, i) => step(i + 1)), personalizationPoints: string[] = []) => ({
  firstDay: days[0],
  gapDays: days.slice(1).map((d, i) => d - days[i]!),
  sequence: steps,
  personalizationPoints,
})

t.test("exactly `steps` steps, days strictly increasing, the caller's channel on every step", async (t) => {
  cap.reply(answer([1, 3, 7], undefined, ['Hiring AP clerks', ' hiring AP clerks ', '']))
  const call = await cap.call({ lead, product, steps: 3, sender: { name: 'Sam' } })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(
    res.body.sequence.map((s: any) => [s.day, s.channel, s.subject]),
    [
      [1, 'email', 'Subject 1'],
      [3, 'email', 'Subject 2'],
      [7, 'email', 'Subject 3'],
    ],
  )
  t.same(res.body.personalizationPoints, ['Hiring AP clerks'], 'points trimmed, deduplicated, empty dropped')
  t.match(cap.prompts[0], 'exactly 3 emails')
  t.match(cap.prompts[0], 'Northwind Logistics')
})

t.test('steps defaults to 3; linkedin steps carry no subject', async (t) => {
  cap.reply(answer([1, 2, 9], [{ message: 'Hi' }, { message: 'Again' }, { message: 'Last' }]))
  const { res } = await cap.call({ lead: 'Dana, VP Finance at Northwind', product, channel: 'linkedin' })
  t.equal(res.status, 200, res.text)
  t.same(res.body.sequence, [
    { day: 1, channel: 'linkedin', message: 'Hi' },
    { day: 2, channel: 'linkedin', message: 'Again' },
    { day: 9, channel: 'linkedin', message: 'Last' },
  ])
})

t.test('answers that break the promises get the corrective retry, then a failed call, charged nothing', async (t) => {
  const three = [1, 2, 3]
  const cases: Array<[string, unknown, object?]> = [
    ['one step too many', answer(three, [step(1), step(2), step(3), step(4)])],
    ['one step too few', answer(three, [step(1), step(2)])],
    ['a gap of zero days', answer([1, 4, 4])],
    ['a negative gap', answer([1, 5, 3])],
    ['day 0', answer([0, 4, 5])],
    ['an email without a subject', answer(three, [step(1), step(2, { subject: '  ' }), step(3)])],
    ['an empty message', answer(three, [step(1), step(2, { message: '\n ' }), step(3)])],
    ['a [placeholder] in a message', answer(three, [step(1), step(2, { message: 'Hi [First Name], quick one.' }), step(3)])],
    ['a {{placeholder}} in a subject', answer(three, [step(1, { subject: 'For {{company}}' }), step(2), step(3)])],
    ['a subject on linkedin', answer(three), { channel: 'linkedin' }],
    ['not JSON', 'Sure! Here is your sequence.'],
  ]
  for (const [why, a, extra] of cases) {
    cap.reply(a)
    await cap.expectRefused(t, { lead, product, steps: 3, ...extra }, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: after one corrective retry`)
  }
  cap.reply(answer(three, [step(1, { message: 'Hi {{first_name}}' }), step(2), step(3)]), answer(three))
  cap.expectCharged(t, await cap.call({ lead, product, steps: 3 }))
})

capabilitySuite(t, cap, {
  badInput: [
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
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => answer([1, 4], undefined, ['VP Finance']) })
  const call = await cap.call({ lead, product, steps: 2 }, { funds: 10 })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sequence: [
      { day: 1, channel: 'email', subject: 'Subject 1', message: 'Message 1' },
      { day: 4, channel: 'email', subject: 'Subject 2', message: 'Message 2' },
    ],
    personalizationPoints: ['VP Finance'],
    usage: { credits: 6, balanceRemaining: 4, livemode: true },
  })
  t.equal(fake.requests[0]?.path, '/v1/responses')
  const format = fake.requests[0]?.body.text.format
  t.equal(format.strict, true, 'strict structured output')
  t.same([format.schema.properties.sequence.minItems, format.schema.properties.sequence.maxItems], [2, 2], 'exactly the steps asked for')
})
