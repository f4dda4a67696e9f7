import t from 'tap'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/registry.ts'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { levelOf } from './handler.ts'
import manifest from './manifest.ts'

// One app for the file, serving only this folder: the mock text model answers from `answer` unless
// `viaFake` is set, then the real @ai-sdk/openai client talks to the fake OpenAI-compatible server.
let answer: (prompt: string) => unknown = () => ({})
let viaFake = false
const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const mock = mockProvider((p) => answer(p))
const real = fakeServerProvider(fake.baseURL, 'chat')
const app = await startTestApp(t, {
  capabilities: [checkManifest(manifest as unknown as CapabilityManifest, 'fraud-flag', 'capabilities/fraud-flag')],
  provider: { ...mock, language: () => (viaFake ? real : mock).language() },
})

const order = { id: 'A-1', amount: 120, currency: 'USD', email: 'ann@example.com', billingCountry: 'US', shippingCountry: 'US' }
const signal = (weight: string) => ({ signal: `${weight} thing`, weight, note: 'from the data' })

async function call(body: unknown, credits = 10) {
  const c = await app.customer(credits)
  const res = await app.call('/v1/fraud-flag', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('the bands: level and recommendation follow from the score, by code', async (t) => {
  t.equal(levelOf(0), 'low')
  t.equal(levelOf(0.33), 'low')
  t.equal(levelOf(0.34), 'medium')
  t.equal(levelOf(0.66), 'medium')
  t.equal(levelOf(0.67), 'high')
  t.equal(levelOf(1), 'high')
  for (const [score, level, recommendation] of [
    [0.05, 'low', 'allow'],
    [0.333, 'low', 'allow'],
    [0.336, 'medium', 'review'],
    [0.5, 'medium', 'review'],
    [0.669, 'high', 'block'],
    [0.99, 'high', 'block'],
  ] as const) {
    // Level and recommendation are not asked of the model (its schema has no room for them): code derives both.
    answer = () => ({ riskScore: score, signals: [signal('low'), signal('high')], recommendedChecks: [] })
    const { res } = await call({ order })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.riskScore, Math.round(score * 100) / 100, 'score rounded to 2 decimals')
    t.equal(res.body.riskLevel, level, `${score} → ${level}`)
    t.equal(res.body.recommendation, recommendation)
  }
})

t.test('signals are ordered by weight and checks deduplicated', async (t) => {
  answer = () => ({
    riskScore: 0.5,
    signals: [signal('low'), signal('high'), signal('medium'), { signal: '  ', weight: 'low', note: 'x' }],
    recommendedChecks: ['Call the customer', 'call the customer ', ''],
  })
  const { res, ledger } = await call({ order, context: 'first order' })
  t.equal(res.status, 200, res.text)
  t.same(res.body.signals.map((s: any) => s.weight), ['high', 'medium', 'low'])
  t.same(res.body.recommendedChecks, ['Call the customer'])
  t.same(res.body.usage, { credits: 6, balanceRemaining: 4 })
  t.equal(ledger.balance, 4)
})

t.test('answers that break the promises are failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['a score above 1', { riskScore: 72, signals: [signal('high')], recommendedChecks: [] }],
    ['a negative score', { riskScore: -0.1, signals: [], recommendedChecks: [] }],
    ['a weight outside the enum', { riskScore: 0.2, signals: [{ signal: 'x', weight: 'severe', note: 'y' }], recommendedChecks: [] }],
    ['an elevated score with no signal', { riskScore: 0.8, signals: [], recommendedChecks: [] }],
    ['no JSON at all', 'I think it is fine'],
  ] as const) {
    answer = () => reply
    const { res, ledger } = await call({ order })
    t.equal(res.status, 502, why)
    t.equal(res.body.error.code, 'inference_failed')
    t.same({ balance: ledger.balance, reserved: ledger.reserved }, { balance: 10, reserved: 0 })
  }
  answer = () => ({ riskScore: 0.1, signals: [], recommendedChecks: [] })
  t.equal((await call({ order })).res.status, 200, 'a low score needs no signal')
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  answer = () => ({ riskScore: 0.1, signals: [], recommendedChecks: [] })
  const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]))
  for (const body of [
    {},
    { order: {} },
    { order: 'A-1 $120' },
    { order: [order] },
    { order: wide },
    { order, context: 'x'.repeat(20_001) },
    { order, score: 1 },
    { order: { blob: 'x'.repeat(200_001) } },
  ]) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 60))
    t.equal(res.body.error.code, 'invalid_request')
    t.equal(ledger.balance, 10)
  }
})

t.test('one call through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  viaFake = true
  t.teardown(() => {
    viaFake = false
  })
  fake.set({ text: () => ({ riskScore: 0.42, signals: [signal('medium')], recommendedChecks: ['Verify the phone number'] }) })
  const { res, ledger } = await call({ order })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    riskScore: 0.42,
    riskLevel: 'medium',
    signals: [signal('medium')],
    recommendedChecks: ['Verify the phone number'],
    recommendation: 'review',
    usage: { credits: 6, balanceRemaining: 4 },
  })
  t.equal(ledger.balance, 4)
  t.equal(ledger.ledgerSum, 4)
  t.equal(fake.requests.at(-1)!.path, '/v1/chat/completions')
})
