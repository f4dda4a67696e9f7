import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'

// One app per file. The provider's text model is switchable: the ai SDK mock (replies set per subtest) for the
// guarantees, the real @ai-sdk/openai client against the fake OpenAI-compatible server for the happy path.
let reply: (prompt: string) => unknown = () => ({})
let fakeReply: (req: FakeTextRequest) => unknown = () => undefined
let viaFake = false
const fake = await startFakeOpenAI({ text: (req) => fakeReply(req) })
t.teardown(() => fake.close())
const mock = mockProvider((p) => reply(p))
const wire = fakeServerProvider(fake.baseURL)
const provider: ModelProvider = { ...mock, language: () => (viaFake ? wire : mock).language() }
const app = await startTestApp(t, { provider })

const PRICE = 3
const taxonomy = ['Billing', 'Technical', 'Shipping']
const items = ['charged twice', 'app crashes', 'box arrived late']

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/categorize', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('results are re-keyed by index, one per item, in order; categories in the caller spelling', async (t) => {
  let prompt = ''
  reply = (p) => {
    prompt = p
    return {
      results: [
        { index: 2, category: ' shipping ', confidence: 0.7 },
        { index: 0, category: 'BILLING', confidence: 0.9 },
        { index: 1, category: 'technical', confidence: 0.8 },
      ],
    }
  }
  const { res, ledger } = await call({ items, taxonomy })
  t.equal(res.status, 200, res.text)
  t.same(res.body.results, [
    { index: 0, category: 'Billing', confidence: 0.9 },
    { index: 1, category: 'Technical', confidence: 0.8 },
    { index: 2, category: 'Shipping', confidence: 0.7 },
  ])
  t.notOk('categories' in res.body.results[0], 'no categories unless multi')
  t.same(res.body.usage, { credits: PRICE, balanceRemaining: 10 - PRICE })
  t.equal(ledger.balance, 10 - PRICE)
  t.match(prompt, /box arrived late/)
  t.match(prompt, /Billing/)
})

t.test('multi: categories from the taxonomy only, category first, no duplicates', async (t) => {
  reply = () => ({
    results: [
      { index: 0, category: 'billing', categories: ['Shipping', 'refunds', 'billing', 'SHIPPING'], confidence: 0.6 },
      { index: 1, category: 'Technical', categories: [], confidence: 0.9 },
    ],
  })
  const { res } = await call({ items: items.slice(0, 2), taxonomy, multi: true })
  t.equal(res.status, 200, res.text)
  t.same(res.body.results, [
    { index: 0, category: 'Billing', categories: ['Billing', 'Shipping'], confidence: 0.6 },
    { index: 1, category: 'Technical', categories: ['Technical'], confidence: 0.9 },
  ])
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['a category outside the taxonomy', { results: [{ index: 0, category: 'Refunds', confidence: 0.9 }, { index: 1, category: 'Technical', confidence: 0.5 }, { index: 2, category: 'Shipping', confidence: 0.5 }] }],
    ['an item left out', { results: [{ index: 0, category: 'Billing', confidence: 0.9 }, { index: 2, category: 'Shipping', confidence: 0.5 }] }],
    ['an index out of range', { results: [{ index: 0, category: 'Billing', confidence: 0.9 }, { index: 1, category: 'Technical', confidence: 0.5 }, { index: 3, category: 'Shipping', confidence: 0.5 }] }],
    ['an item answered twice', { results: [{ index: 0, category: 'Billing', confidence: 0.9 }, { index: 0, category: 'Technical', confidence: 0.5 }, { index: 1, category: 'Technical', confidence: 0.5 }, { index: 2, category: 'Shipping', confidence: 0.5 }] }],
    ['a confidence above 1 (twice: after the retry)', { results: [{ index: 0, category: 'Billing', confidence: 7 }] }],
    ['no results at all', { results: [] }],
  ]
  for (const [why, answer] of broken) {
    reply = () => answer
    const { res, ledger } = await call({ items, taxonomy })
    t.equal(res.status, 502, why)
    t.equal(res.body.error.code, 'inference_failed', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged, hold released`)
  }
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const bad: Array<[string, unknown]> = [
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
  ]
  for (const [why, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, why)
    t.equal(res.body.error?.code, 'invalid_request', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => void (viaFake = false))
  let seen: FakeTextRequest | undefined
  fakeReply = (req) => {
    seen = req
    return { results: items.map((_, index) => ({ index, category: taxonomy[index], confidence: 0.75 })) }
  }
  const { res, ledger } = await call({ items, taxonomy }, 7)
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    results: [
      { index: 0, category: 'Billing', confidence: 0.75 },
      { index: 1, category: 'Technical', confidence: 0.75 },
      { index: 2, category: 'Shipping', confidence: 0.75 },
    ],
    usage: { credits: PRICE, balanceRemaining: 7 - PRICE },
  })
  t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [7 - PRICE, 0, 7 - PRICE])
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /app crashes/)
})
