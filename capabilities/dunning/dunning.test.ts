import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

// A fixed clock: dates are computed from it. The mock text model answers unless a subtest moves to the fake
// OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { now: () => new Date('2026-03-15T09:30:00Z'), funds: 20 })

const base = { invoice: { number: 'INV-1', amount: 1250, currency: 'USD', daysOverdue: 14 }, customer: { name: 'Acme' } }
const step = (day: number, channel = 'email') => ({ day, channel, subject: `Reminder ${day}`, message: `INV-1, USD 1,250.00 is overdue (day ${day}).` })
const reply = (...days: number[]) => ({ sequence: days.map((d) => step(d)), escalationAdvice: 'Call them.' })

t.test('the sequence has exactly `steps` steps: extra ones are cut', async (t) => {
  cap.reply(reply(0, 3, 7, 14, 21))
  const call = await cap.call(base)
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.sequence.map((s: any) => s.day), [0, 3, 7], 'default 3 steps, the first three kept')
  t.same(res.body.sequence.map((s: any) => s.date), ['2026-03-15', '2026-03-18', '2026-03-22'], 'dates from the day of the call')

  cap.reply(reply(0, 3, 7, 14, 21, 28, 35, 42, 49, 56, 63))
  const ten = await cap.call({ ...base, steps: 10 })
  t.equal(ten.res.body.sequence.length, 10)
  cap.reply(reply(0, 3))
  const one = await cap.call({ ...base, steps: 1 })
  t.same(one.res.body.sequence.map((s: any) => s.day), [0])
})

t.test('too few steps, or days that do not strictly increase, are failed calls, free', async (t) => {
  for (const [why, body, model] of [
    ['two steps for four', { ...base, steps: 4 }, reply(0, 7)],
    ['days going back', { ...base, steps: 3 }, reply(0, 10, 5)],
    ['two steps on one day', { ...base, steps: 3 }, reply(0, 7, 7)],
    ['a negative day', { ...base, steps: 2 }, reply(-1, 7)],
    ['a fractional day', { ...base, steps: 2 }, reply(0, 2.5)],
    ['a channel outside the enum', { ...base, steps: 1 }, { sequence: [step(0, 'letter')], escalationAdvice: 'x' }],
    ['an empty message', { ...base, steps: 1 }, { sequence: [{ ...step(0), message: '  ' }], escalationAdvice: 'x' }],
    ['a placeholder left in', { ...base, steps: 1 }, { sequence: [{ ...step(0), message: 'Dear [Customer], pay.' }], escalationAdvice: 'x' }],
    ['no escalation advice', { ...base, steps: 1 }, { sequence: [step(0)], escalationAdvice: ' ' }],
  ] as const) {
    cap.reply(model)
    await cap.expectRefused(t, body, { status: 502, code: 'inference_failed', why })
  }
})

t.test("the caller's channel wins; sms steps carry no subject", async (t) => {
  cap.reply({ sequence: [step(0, 'email'), step(5, 'sms')], escalationAdvice: 'x' })
  const sms = await cap.call({ ...base, channel: 'sms', steps: 2 })
  t.equal(sms.res.status, 200, sms.res.text)
  t.same(sms.res.body.sequence.map((s: any) => s.channel), ['sms', 'sms'])
  t.notOk(sms.res.body.sequence.some((s: any) => 'subject' in s))

  const mixed = await cap.call({ ...base, steps: 2 })
  t.same(mixed.res.body.sequence.map((s: any) => [s.channel, s.subject]), [['email', 'Reminder 0'], ['sms', undefined]], 'no channel asked: the model chooses')
})

t.test('a payment link, when given, is in every message', async (t) => {
  const url = 'https://pay.example.com/INV-1'
  cap.reply({ sequence: [{ ...step(0), message: `Pay at ${url} today.` }, step(7)], escalationAdvice: 'x' })
  const { res } = await cap.call({ ...base, steps: 2, paymentUrl: url, senderName: 'Jo at Widgets Ltd' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.sequence[0].message, `Pay at ${url} today.`, 'left alone when already there')
  t.match(res.body.sequence[1].message, `Pay here: ${url}`)
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  cap.reply(reply(0, 3, 7))
  for (const body of [
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
  ]) {
    await cap.expectRefused(t, body)
  }
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => reply(0, 7) })
  const call = await cap.call({ ...base, steps: 2, tone: 'friendly', channel: 'email' })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sequence: [
      { day: 0, date: '2026-03-15', channel: 'email', subject: 'Reminder 0', message: step(0).message },
      { day: 7, date: '2026-03-22', channel: 'email', subject: 'Reminder 7', message: step(7).message },
    ],
    escalationAdvice: 'Call them.',
    usage: { credits: 8, balanceRemaining: 12 },
  })
  const schema = JSON.stringify(fake.requests.at(-1)!.body.text.format.schema)
  t.match(schema, /"minItems":2/, 'the model is asked for (at least) the number of steps')
})
