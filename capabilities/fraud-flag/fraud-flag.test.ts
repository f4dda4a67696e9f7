import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { levelOf } from './handler.ts'
import manifest from './manifest.ts'

// The mock text model answers unless a subtest moves to the fake OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const order = { id: 'A-1', amount: 120, currency: 'USD', email: 'ann@example.com', billingCountry: 'US', shippingCountry: 'US' }
/** The model's answer: the score with its signals, and the checks. */
const answer = (riskScore: number, signals: unknown[], recommendedChecks: string[] = []) => ({
  assessment: { riskScore, signals },
  recommendedChecks,
})
const signal = (weight: string) => ({ signal: `${weight} thing`, weight, note: 'from the data' })

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
    cap.reply(answer(score, [signal('low'), signal('high')]))
    const { res } = await cap.call({ order })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.riskScore, Math.round(score * 100) / 100, 'score rounded to 2 decimals')
    t.equal(res.body.riskLevel, level, `${score} → ${level}`)
    t.equal(res.body.recommendation, recommendation)
  }
})

t.test('signals are ordered by weight and checks deduplicated', async (t) => {
  cap.reply(answer(0.5, [signal('low'), signal('high'), signal('medium')], ['Call the customer', 'call the customer ', '']))
  const call = await cap.call({ order, context: 'first order' })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(
    res.body.signals.map((s: any) => s.weight),
    ['high', 'medium', 'low'],
  )
  t.same(res.body.recommendedChecks, ['Call the customer'])
})

t.test('answers outside the schema (an elevated score needs a signal) are asked once more, then failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['a score above 1', answer(72, [signal('high')])],
    ['a negative score', answer(-0.1, [])],
    ['a weight outside the enum', answer(0.2, [{ signal: 'x', weight: 'severe', note: 'y' }])],
    ['an elevated score with no signal', answer(0.8, [])],
    ['a score that rounds to medium with no signal', answer(0.336, [])],
    ['a blank signal', answer(0.5, [{ signal: '  ', weight: 'low', note: 'x' }])],
    ['no JSON at all', 'I think it is fine'],
  ] as const) {
    cap.reply(reply)
    await cap.expectRefused(t, { order }, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: sent back once`)
  }
  cap.reply(answer(0.1, []))
  t.equal((await cap.call({ order })).res.status, 200, 'a low score needs no signal')
  cap.reply(answer(0.9, []), answer(0.9, [signal('high')]))
  t.equal((await cap.call({ order })).res.status, 200, 'a signal given in the corrective retry is served')
})

const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]))
capabilitySuite(t, cap, {
  badBodies: [
    {},
    { order: {} },
    { order: 'A-1 $120' },
    { order: [order] },
    { order: wide },
    { order, context: 'x'.repeat(20_001) },
    { order, score: 1 },
    { order: { blob: 'x'.repeat(200_001) } },
  ],
})

t.test('one call through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  const fake = await cap.useFake({
    wire: 'chat',
    text: () => answer(0.42, [signal('medium')], ['Verify the phone number']),
  })
  const call = await cap.call({ order })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    riskScore: 0.42,
    riskLevel: 'medium',
    signals: [signal('medium')],
    recommendedChecks: ['Verify the phone number'],
    recommendation: 'review',
    usage: { credits: 6, balanceRemaining: 4, livemode: true },
  })
  t.equal(fake.requests.at(-1)!.path, '/v1/chat/completions')
})
