import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// A fixed clock: dates are computed from it. The mock text model answers unless a subtest moves to the fake
// OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { now: () => new Date('2026-03-15T09:30:00Z'), funds: 20 })

const base = { invoice: { number: 'INV-1', amount: 1250, currency: 'USD', daysOverdue: 14 }, customer: { name: 'Acme' } }
const step = (n: number, channel = 'email') => ({
  channel,
  subject: `Reminder ${n}`,
  message: `INV-1, USD 1,250.00 is overdue (reminder ${n}).`,
})
/** A model answer: the first day, then the gaps, one step per day. */
const reply = (firstDay: number, ...gapDays: number[]) => ({
  firstDay,
  gapDays,
  sequence: [firstDay, ...gapDays].map((_, i) => step(i + 1)),
  escalationAdvice: 'Call them.',
})

t.test('days are the first day plus gaps, so they always increase; dates from the day of the call', async (t) => {
  cap.reply(reply(0, 3, 4))
  const call = await cap.call(base)
  cap.expectCharged(t, call)
  const { res } = call
  t.same(
    res.body.sequence.map((s: any) => s.day),
    [0, 3, 7],
    'default 3 steps',
  )
  t.same(
    res.body.sequence.map((s: any) => s.date),
    ['2026-03-15', '2026-03-18', '2026-03-22'],
  )
  t.match(cap.prompts[0], /gapDays/)

  cap.reply(reply(0, ...Array(9).fill(7)))
  const ten = await cap.call({ ...base, steps: 10 })
  t.same(
    ten.res.body.sequence.map((s: any) => s.day),
    [0, 7, 14, 21, 28, 35, 42, 49, 56, 63],
  )
  cap.reply(reply(2))
  const one = await cap.call({ ...base, steps: 1 })
  t.same(
    one.res.body.sequence.map((s: any) => s.day),
    [2],
  )
})

t.test('answers breaking a promise get the corrective retry, then 502, free', async (t) => {
  const one = (over: Record<string, unknown>) => ({ ...reply(0), sequence: [{ ...step(1), ...over }] })
  for (const [why, body, model] of [
    ['two steps for four', { ...base, steps: 4 }, reply(0, 7)],
    ['a gap of zero days', { ...base, steps: 3 }, reply(0, 7, 0)],
    ['a negative first day', { ...base, steps: 2 }, reply(-1, 7)],
    ['a fractional gap', { ...base, steps: 2 }, reply(0, 2.5)],
    ['days past 365', { ...base, steps: 2 }, reply(0, 200)],
    ['a channel outside the enum', { ...base, steps: 1 }, one({ channel: 'letter' })],
    ['email steps when sms was asked for', { ...base, steps: 1, channel: 'sms' }, one({ channel: 'email' })],
    ['an empty message', { ...base, steps: 1 }, one({ message: '  ' })],
    ['a placeholder left in', { ...base, steps: 1 }, one({ message: 'Dear [Customer], INV-1 for 1,250.00 is due.' })],
    ['a {{placeholder}} in the subject', { ...base, steps: 1 }, one({ subject: 'Hi {{name}}' })],
    ['a message without the amount', { ...base, steps: 1 }, one({ message: 'Invoice INV-1 is overdue.' })],
    ['a message without the invoice number', { ...base, steps: 1 }, one({ message: 'USD 1,250.00 is overdue.' })],
    ['no escalation advice', { ...base, steps: 1 }, { ...reply(0), escalationAdvice: ' ' }],
  ] as const) {
    cap.reply(model)
    await cap.expectRefused(t, body, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: after one corrective retry`)
  }
  cap.reply({ ...reply(0), sequence: [{ ...step(1), message: 'USD 1,250.00 is overdue.' }] }, reply(0))
  cap.expectCharged(t, await cap.call({ ...base, steps: 1 }), 8)
})

t.test('the amount may be written with or without separators and decimals', async (t) => {
  for (const message of ['INV-1: 1250 USD due', 'Pay USD 1,250.00 for INV-1', '1250.00 is owed on INV-1']) {
    cap.reply({ ...reply(0), sequence: [{ ...step(1), message }] })
    const { res } = await cap.call({ ...base, steps: 1 })
    t.equal(res.status, 200, `${message}: ${res.text}`)
  }
})

t.test('sms steps carry no subject; without a channel the model chooses', async (t) => {
  cap.reply({ ...reply(0, 5), sequence: [step(1, 'sms'), step(2, 'sms')] })
  const sms = await cap.call({ ...base, channel: 'sms', steps: 2 })
  t.equal(sms.res.status, 200, sms.res.text)
  t.same(
    sms.res.body.sequence.map((s: any) => s.channel),
    ['sms', 'sms'],
  )
  t.notOk(sms.res.body.sequence.some((s: any) => 'subject' in s))

  cap.reply({ ...reply(0, 5), sequence: [step(1, 'email'), step(2, 'sms')] })
  const mixed = await cap.call({ ...base, steps: 2 })
  t.same(
    mixed.res.body.sequence.map((s: any) => [s.channel, s.subject]),
    [
      ['email', 'Reminder 1'],
      ['sms', undefined],
    ],
    'no channel asked: the model chooses',
  )
})

t.test('a payment link, when given, is in every message', async (t) => {
  const url = 'https://pay.example.com/INV-1'
  cap.reply({ ...reply(0, 7), sequence: [{ ...step(1), message: `Pay INV-1 (1,250.00) at ${url} today.` }, step(2)] })
  const { res } = await cap.call({ ...base, steps: 2, paymentUrl: url, senderName: 'Jo at Widgets Ltd' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.sequence[0].message, `Pay INV-1 (1,250.00) at ${url} today.`, 'left alone when already there')
  t.match(res.body.sequence[1].message, `Pay here: ${url}`)
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { invoice: base.invoice },
    { customer: base.customer },
    { ...base, steps: 0 },
    { ...base, steps: 11 },
    { ...base, steps: 2.5 },
    { ...base, channel: 'fax' },
    { ...base, tone: 'angry' },
    { ...base, invoice: { number: 'INV-1' } },
    { ...base, invoice: { amount: 0 } },
    { ...base, invoice: { amount: 10, dueDate: '2026-02-30' } },
    { ...base, invoice: { amount: 10, currency: 'dollars' } },
    { ...base, invoice: { amount: 10, daysOverdue: -1 } },
    { ...base, customer: { history: 'x' } },
    { ...base, customer: { name: 'x'.repeat(201) } },
    { ...base, paymentUrl: 'javascript:alert(1)' },
    { ...base, extra: 1 },
  ],
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => reply(0, 7) })
  const call = await cap.call({ ...base, steps: 2, tone: 'friendly', channel: 'email' })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sequence: [
      { day: 0, date: '2026-03-15', channel: 'email', subject: 'Reminder 1', message: step(1).message },
      { day: 7, date: '2026-03-22', channel: 'email', subject: 'Reminder 2', message: step(2).message },
    ],
    escalationAdvice: 'Call them.',
    usage: { credits: 8, balanceRemaining: 12, livemode: true },
  })
  const format = fake.requests.at(-1)!.body.text.format
  t.equal(format.strict, true, 'strict structured output')
  t.same([format.schema.properties.sequence.minItems, format.schema.properties.sequence.maxItems], [2, 2], 'exactly the number of steps')
  t.same(format.schema.properties.sequence.items.properties.channel.enum, ['email'], "the caller's channel")
  t.match(format.schema.properties.sequence.items.properties.message.pattern, /INV-1/, 'the invoice number is required by the schema')
})
