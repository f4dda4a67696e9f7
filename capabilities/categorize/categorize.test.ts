import t from 'tap'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// The mock model (replies set per subtest) for the guarantees, the fake OpenAI-compatible server for the happy path.
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const taxonomy = ['Billing', 'Technical', 'Shipping']
const items = ['charged twice', 'app crashes', 'box arrived late']

t.test('the answer schema carries the taxonomy and the item count; results come back in item order', async (t) => {
  cap.reply({
    results: [
      { category: 'Billing', confidence: 0.9 },
      { category: 'Technical', confidence: 0.8 },
      { category: 'Shipping', confidence: 0.7 },
    ],
  })
  const call = await cap.call({ items, taxonomy })
  cap.expectCharged(t, call)
  t.same(call.res.body.results, [
    { index: 0, category: 'Billing', confidence: 0.9 },
    { index: 1, category: 'Technical', confidence: 0.8 },
    { index: 2, category: 'Shipping', confidence: 0.7 },
  ])
  t.notOk('categories' in call.res.body.results[0], 'no categories unless multi')
  t.match(cap.prompts[0], /box arrived late/)
  t.match(cap.prompts[0], /Billing/)
})

t.test('multi: categories from the taxonomy only, category first, no duplicates', async (t) => {
  cap.reply({
    results: [
      { category: 'Billing', categories: ['Shipping', 'Billing', 'Shipping'], confidence: 0.6 },
      { category: 'Technical', categories: [], confidence: 0.9 },
    ],
  })
  const { res } = await cap.call({ items: items.slice(0, 2), taxonomy, multi: true })
  t.equal(res.status, 200, res.text)
  t.same(res.body.results, [
    { index: 0, category: 'Billing', categories: ['Billing', 'Shipping'], confidence: 0.6 },
    { index: 1, category: 'Technical', categories: ['Technical'], confidence: 0.9 },
  ])
})

t.test('model answers that break the promises get the corrective retry, then 502 inference_failed, nothing charged', async (t) => {
  const ok = { results: items.map((_, i) => ({ category: taxonomy[i], confidence: 0.5 })) }
  const broken: Array<[string, unknown]> = [
    ['a category outside the taxonomy', { results: [{ category: 'Refunds', confidence: 0.9 }, ok.results[1], ok.results[2]] }],
    ['a category in another case', { results: [{ category: 'billing', confidence: 0.9 }, ok.results[1], ok.results[2]] }],
    ['an item left out', { results: ok.results.slice(0, 2) }],
    ['one result too many', { results: [...ok.results, ok.results[0]] }],
    ['a confidence above 1', { results: [{ category: 'Billing', confidence: 7 }, ok.results[1], ok.results[2]] }],
    ['no results at all', { results: [] }],
  ]
  for (const [why, answer] of broken) {
    cap.reply(answer)
    await cap.expectRefused(t, { items, taxonomy }, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: one corrective retry`)
    t.match(cap.prompts[1], /does not match the required JSON schema/, `${why}: the retry says what was wrong`)
  }
  cap.reply({ results: [] }, ok)
  cap.expectCharged(t, await cap.call({ items, taxonomy }), 3)
})

capabilitySuite(t, cap, {
  badInput: [
    ['no items', { items: [], taxonomy }],
    ['101 items', { items: Array.from({ length: 101 }, (_, i) => `item ${i}`), taxonomy }],
    ['an empty item', { items: ['ok', ''], taxonomy }],
    ['an item over 5,000 characters', { items: ['x'.repeat(5001)], taxonomy }],
    ['items not strings', { items: [1, 2], taxonomy }],
    ['no taxonomy', { items }],
    ['empty taxonomy', { items, taxonomy: [] }],
    ['duplicate categories', { items, taxonomy: ['a', 'a'] }],
    ['a category over 200 characters', { items, taxonomy: ['y'.repeat(201)] }],
    ['unknown field', { items, taxonomy, extra: true }],
    ['multi not boolean', { items, taxonomy, multi: 'yes' }],
    ['instructions too long', { items, taxonomy, instructions: 'z'.repeat(4001) }],
    ['categories equal but for case', { items, taxonomy: ['Billing', 'billing'] }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  let seen: FakeTextRequest | undefined
  await cap.useFake({
    text: (req) => {
      seen = req
      return { results: items.map((_, index) => ({ category: taxonomy[index], confidence: 0.75 })) }
    },
  })
  const call = await cap.call({ items, taxonomy }, { funds: 7 })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    results: [
      { index: 0, category: 'Billing', confidence: 0.75 },
      { index: 1, category: 'Technical', confidence: 0.75 },
      { index: 2, category: 'Shipping', confidence: 0.75 },
    ],
    usage: { credits: 3, balanceRemaining: 4, livemode: true },
  })
  const schema = seen?.jsonSchema as any
  t.same(schema?.properties.results.items.properties.category.enum, taxonomy, 'the taxonomy is the enum of the answer schema')
  t.same([schema?.properties.results.minItems, schema?.properties.results.maxItems], [3, 3], 'exactly one result per item')
  t.equal(seen?.body.text.format.strict, true, 'sent in strict mode')
  t.match(seen?.prompt, /app crashes/)
})
