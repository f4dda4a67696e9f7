import t from 'tap'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/registry.ts'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import manifest from './manifest.ts'

// One app for the file, serving only this folder, with a fixed clock (dates are computed from it): the mock
// text model answers from `answer` unless `viaFake` is set, then the real @ai-sdk/openai client talks to
// the fake OpenAI-compatible server.
let answer: (prompt: string) => unknown = () => ({})
let viaFake = false
const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const mock = mockProvider((p) => answer(p))
const real = fakeServerProvider(fake.baseURL)
const app = await startTestApp(t, {
  capabilities: [checkManifest(manifest as unknown as CapabilityManifest, 'dunning', 'capabilities/dunning')],
  provider: { ...mock, language: () => (viaFake ? real : mock).language() },
  now: () => new Date('2026-03-15T09:30:00Z'),
})

const base = { invoice: { number: 'INV-1', amount: 1250, currency: 'USD', daysOverdue: 14 }, customer: { name: 'Acme' } }
const step = (day: number, channel = 'email') => ({ day, channel, subject: `Reminder ${day}`, message: `INV-1, USD 1,250.00 is overdue (day ${day}).` })
const reply = (...days: number[]) => ({ sequence: days.map((d) => step(d)), escalationAdvice: 'Call them.' })

async function call(body: unknown, credits = 20) {
  const c = await app.customer(credits)
  const res = await app.call('/v1/dunning', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('the sequence has exactly `steps` steps: extra ones are cut', async (t) => {
  answer = () => reply(0, 3, 7, 14, 21)
  const { res, ledger } = await call(base)
  t.equal(res.status, 200, res.text)
  t.same(res.body.sequence.map((s: any) => s.day), [0, 3, 7], 'default 3 steps, the first three kept')
  t.same(res.body.sequence.map((s: any) => s.date), ['2026-03-15', '2026-03-18', '2026-03-22'], 'dates from the day of the call')
  t.same(res.body.usage, { credits: 8, balanceRemaining: 12 })
  t.equal(ledger.balance, 12)

  answer = () => reply(0, 3, 7, 14, 21, 28, 35, 42, 49, 56, 63)
  const ten = await call({ ...base, steps: 10 })
  t.equal(ten.res.body.sequence.length, 10)
  answer = () => reply(0, 3)
  const one = await call({ ...base, steps: 1 })
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
    answer = () => model
    const { res, ledger } = await call(body)
    t.equal(res.status, 502, why)
    t.equal(res.body.error.code, 'inference_failed')
    t.same({ balance: ledger.balance, reserved: ledger.reserved }, { balance: 20, reserved: 0 })
  }
})

t.test("the caller's channel wins; sms steps carry no subject", async (t) => {
  answer = () => ({ sequence: [step(0, 'email'), step(5, 'sms')], escalationAdvice: 'x' })
  const sms = await call({ ...base, channel: 'sms', steps: 2 })
  t.equal(sms.res.status, 200, sms.res.text)
  t.same(sms.res.body.sequence.map((s: any) => s.channel), ['sms', 'sms'])
  t.notOk(sms.res.body.sequence.some((s: any) => 'subject' in s))

  const mixed = await call({ ...base, steps: 2 })
  t.same(mixed.res.body.sequence.map((s: any) => [s.channel, s.subject]), [['email', 'Reminder 0'], ['sms', undefined]], 'no channel asked: the model chooses')
})

t.test('a payment link, when given, is in every message', async (t) => {
  const url = 'https://pay.example.com/INV-1'
  answer = () => ({ sequence: [{ ...step(0), message: `Pay at ${url} today.` }, step(7)], escalationAdvice: 'x' })
  const { res } = await call({ ...base, steps: 2, paymentUrl: url, senderName: 'Jo at Widgets Ltd' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.sequence[0].message, `Pay at ${url} today.`, 'left alone when already there')
  t.match(res.body.sequence[1].message, `Pay here: ${url}`)
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  answer = () => reply(0, 3, 7)
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
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
    t.equal(res.body.error.code, 'invalid_request')
    t.equal(ledger.balance, 20)
  }
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => {
    viaFake = false
  })
  fake.set({ text: () => reply(0, 7) })
  const { res, ledger } = await call({ ...base, steps: 2, tone: 'friendly', channel: 'email' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    sequence: [
      { day: 0, date: '2026-03-15', channel: 'email', subject: 'Reminder 0', message: step(0).message },
      { day: 7, date: '2026-03-22', channel: 'email', subject: 'Reminder 7', message: step(7).message },
    ],
    escalationAdvice: 'Call them.',
    usage: { credits: 8, balanceRemaining: 12 },
  })
  t.equal(ledger.ledgerSum, 12)
  const schema = JSON.stringify(fake.requests.at(-1)!.body.text.format.schema)
  t.match(schema, /"minItems":2/, 'the model is asked for (at least) the number of steps')
})
