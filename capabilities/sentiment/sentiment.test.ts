import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const text = 'Delivery was fast, but the blender broke after two days and support never answered.'
const base = { sentiment: 'negative', score: -0.5, confidence: 0.8, aspects: [], themes: [] }

t.test('requested aspects: exactly those, in order, missing or unmentioned ones neutral', async (t) => {
  cap.reply({
    ...base,
    aspects: [
      { aspect: 'Support', sentiment: 'negative', score: -0.7, mentioned: true }, // other case
      { aspect: 'delivery', sentiment: 'positive', score: 0.6, mentioned: true },
      { aspect: 'packaging', sentiment: 'positive', score: 0.9, mentioned: true }, // not asked for
      { aspect: 'price', sentiment: 'positive', score: 0.4, mentioned: false }, // not mentioned: neutral
    ],
    themes: ['durability', ' Durability ', '', 'support'],
  })
  const call = await cap.call({ text, aspects: ['delivery', 'support', 'price', 'warranty'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sentiment: 'negative',
    score: -0.5,
    confidence: 0.8,
    aspects: [
      { aspect: 'delivery', sentiment: 'positive', score: 0.6, mentioned: true },
      { aspect: 'support', sentiment: 'negative', score: -0.7, mentioned: true },
      { aspect: 'price', sentiment: 'neutral', score: 0, mentioned: false },
      { aspect: 'warranty', sentiment: 'neutral', score: 0, mentioned: false },
    ],
    themes: ['durability', 'support'],
    usage: { credits: 2, balanceRemaining: 8, livemode: true },
  })
})

t.test('found aspects: de-duplicated, capped at 20, no mentioned flag', async (t) => {
  cap.reply({
    ...base,
    aspects: [
      { aspect: 'quality', sentiment: 'negative', score: -0.8, mentioned: true },
      { aspect: 'Quality', sentiment: 'positive', score: 0.8, mentioned: true },
      ...Array.from({ length: 30 }, (_, i) => ({ aspect: `a${i}`, sentiment: 'neutral', score: 0, mentioned: true })),
    ],
    themes: Array.from({ length: 15 }, (_, i) => `t${i}`),
  })
  const { res } = await cap.call({ text })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.aspects.length, 20)
  t.same(res.body.aspects[0], { aspect: 'quality', sentiment: 'negative', score: -0.8 })
  t.equal(res.body.themes.length, 10)
})

t.test('issue 16: a label that contradicts its score follows the score', async (t) => {
  cap.reply({
    ...base,
    sentiment: 'positive',
    score: -0.9,
    aspects: [
      { aspect: 'delivery', sentiment: 'negative', score: 0.6, mentioned: true },
      { aspect: 'support', sentiment: 'neutral', score: -0.2, mentioned: true }, // within the band: kept
      { aspect: 'price', sentiment: 'mixed', score: 0.95, mentioned: true },
    ],
  })
  const { res } = await cap.call({ text })
  t.equal(res.status, 200, res.text)
  t.same([res.body.sentiment, res.body.score], ['negative', -0.9])
  t.same(
    res.body.aspects.map((a: any) => [a.aspect, a.sentiment, a.score]),
    [
      ['delivery', 'positive', 0.6],
      ['support', 'neutral', -0.2],
      ['price', 'positive', 0.95],
    ],
  )
})

t.test('a label outside the enum or a score outside -1..1 (twice) is a free 502', async (t) => {
  for (const bad of [
    { ...base, sentiment: 'angry' },
    { ...base, score: -3 },
    { ...base, confidence: 1.2 },
  ]) {
    cap.reply(bad)
    await cap.expectRefused(t, { text }, { status: 502, code: 'inference_failed', why: JSON.stringify(bad) })
  }
})

t.test('a bad first answer is retried once with the errors', async (t) => {
  cap.reply({ ...base, sentiment: 'Negative!' }, base)
  const { res } = await cap.call({ text })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.sentiment, 'negative')
  t.equal(cap.prompts.length, 2)
})

capabilitySuite(t, cap, {
  badInput: [
    ['no text', {}],
    ['empty text', { text: '' }],
    ['text too long', { text: 'x'.repeat(500_001) }],
    ['aspects not an array', { text, aspects: 'price' }],
    ['51 aspects', { text, aspects: Array.from({ length: 51 }, (_, i) => `a${i}`) }],
    ['duplicate aspects', { text, aspects: ['price', 'price'] }],
    ['aspect too long', { text, aspects: ['x'.repeat(201)] }],
    ['unknown property', { text, language: 'en' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({
    text: () => ({
      sentiment: 'mixed',
      score: -0.2,
      confidence: 0.7,
      aspects: [{ aspect: 'delivery', sentiment: 'positive', score: 0.7, mentioned: true }],
      themes: ['durability'],
    }),
  })
  const call = await cap.call({ text, aspects: ['delivery'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    sentiment: 'mixed',
    score: -0.2,
    confidence: 0.7,
    aspects: [{ aspect: 'delivery', sentiment: 'positive', score: 0.7, mentioned: true }],
    themes: ['durability'],
    usage: { credits: 2, balanceRemaining: 8, livemode: true },
  })
})
