import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import { checkManifest } from '../../core/registry.ts'
import manifest from './manifest.ts'

/** One app per file: the provider the app sees is whichever `use()` was given last. */
function switchable(initial: ModelProvider) {
  let current = initial
  const provider: ModelProvider = {
    get configured() {
      return current.configured
    },
    get acceptsFiles() {
      return current.acceptsFiles
    },
    language: () => current.language(),
    image: () => current.image(),
    speech: () => current.speech(),
    transcription: () => current.transcription(),
    embedding: () => current.embedding(),
    webSearch: () => current.webSearch(),
  }
  return { provider, use: (next: ModelProvider) => void (current = next) }
}

let replies: unknown[] = []
let prompts: string[] = []
// Each model call takes the next reply; the last one repeats.
const mock = mockProvider((p) => (prompts.push(p), replies.length > 1 ? replies.shift() : replies[0]))
const providers = switchable(mock)
// Only this folder is served: the test does not depend on other capability folders booting.
const capabilities = [checkManifest(manifest as never, 'product-copy', 'capabilities/product-copy')]
const app = await startTestApp(t, { capabilities, provider: providers.provider })
t.beforeEach(() => providers.use(mock))

const product = { name: 'Trailhead 2L Bottle', brand: 'Trailhead', features: 'Steel, cold 24 h', keywords: ['insulated bottle', 'Leak Proof'] }
const five = ['COLD: 24 h', 'LEAK-PROOF: lid', 'FITS: cup holders', 'STEEL: food grade', 'BIG: 2 litres']
const good = { titles: ['Trailhead Insulated Bottle 2L'], bullets: five, description: 'Keeps drinks cold.', seoKeywords: ['water bottle', 'leak proof', 'hiking'] }

async function call(body: unknown, credits = 100) {
  const c = await app.customer(credits)
  prompts = []
  const res = await app.call('/v1/product-copy', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('amazon: 5 bullets, caller keywords first and deduplicated, charged 5', async (t) => {
  replies = [{ ...good, bullets: five.map((b) => `• ${b}`) }]
  const { res, ledger } = await call({ product, channel: 'amazon' })
  t.equal(res.status, 200, res.text)
  t.same(res.body.bullets, five, 'bullet markers stripped')
  t.same(res.body.seoKeywords, ['insulated bottle', 'Leak Proof', 'water bottle', 'hiking'])
  t.same(res.body.usage, { credits: 5, balanceRemaining: 95 })
  t.equal(ledger.balance, 95)
  t.equal(prompts.length, 1)
  t.match(prompts[0], 'exactly 5')
})

t.test('amazon: backend search terms fit 249 bytes', async (t) => {
  const many = Array.from({ length: 30 }, (_, i) => `keyword number ${i}`)
  replies = [{ ...good, seoKeywords: many }]
  const { res } = await call({ product: { name: 'Bottle' }, channel: 'amazon' })
  t.equal(res.status, 200, res.text)
  t.ok(Buffer.byteLength(res.body.seoKeywords.join(' ')) <= 249)
  t.ok(res.body.seoKeywords.length > 5)
})

t.test('a first answer over the limits gets one repair round; what still breaks a limit fails', async (t) => {
  const long = `Trailhead ${'x'.repeat(200)}`
  replies = [{ ...good, titles: [long], description: '<p>Cold</p>' }, good]
  let r = await call({ product, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, good.titles)
  t.equal(prompts.length, 2, 'one repair call')
  t.match(prompts[1], 'title 1 is 210 characters, over 200')
  t.match(prompts[1], 'the description contains HTML')

  // After the repair, titles that still break a limit are dropped; others stay.
  replies = [{ ...good, titles: [long] }, { ...good, titles: ['Trailhead Bottle!', 'Trailhead Bottle, 2L', long] }]
  r = await call({ product, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, ['Trailhead Bottle, 2L'], '"!" and over-long titles dropped')

  const broken: Array<[string, unknown, string]> = [
    ['no title within limits', { ...good, titles: [long] }, 'amazon'],
    ['description too long', { ...good, description: 'x'.repeat(2001) }, 'amazon'],
    ['bullet too long', { ...good, bullets: [...five.slice(0, 4), 'y'.repeat(501)] }, 'amazon'],
    ['HTML in a bullet', { ...good, bullets: [...five.slice(0, 4), '<b>bold</b>'] }, 'amazon'],
    ['empty description', { ...good, description: '  ' }, 'shopify'],
    ['title over 255 on shopify', { ...good, titles: ['z'.repeat(256)] }, 'shopify'],
  ]
  for (const [name, answer, channel] of broken) {
    replies = [answer]
    const { res, ledger } = await call({ product, channel })
    t.equal(res.status, 502, `${name}: ${res.text}`)
    t.equal(res.body.error.code, 'inference_failed', name)
    t.equal(prompts.length, 2, `${name}: repaired once, then gave up`)
    t.equal(ledger.balance, 100, `${name}: nothing charged`)
  }
})

t.test('amazon bullet count is enforced; a brand may contain forbidden characters', async (t) => {
  replies = [{ ...good, bullets: five.slice(0, 4) }]
  let r = await call({ product, channel: 'amazon' })
  t.equal(r.res.status, 502, 'four bullets on amazon')
  t.equal(r.ledger.balance, 100)

  replies = [{ ...good, titles: ['Yahoo! Bottle 2L'] }]
  r = await call({ product: { ...product, brand: 'Yahoo!' }, channel: 'amazon' })
  t.equal(r.res.status, 200, r.res.text)
  t.same(r.res.body.titles, ['Yahoo! Bottle 2L'])
})

t.test('generic is the default channel: 3 to 7 bullets', async (t) => {
  replies = [{ ...good, bullets: five.slice(0, 3) }]
  const { res } = await call({ product: { name: 'Bottle' } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.bullets.length, 3)
  t.match(prompts[0], 'copy for the \\"generic\\" channel', 'prompt JSON-escaped')
})

t.test('bad input is 400 invalid_request and charges nothing', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['no product', { channel: 'amazon' }],
    ['no name', { product: { features: 'x' } }],
    ['product as string', { product: 'Bottle' }],
    ['name too long', { product: { name: 'x'.repeat(201) } }],
    ['unknown channel', { product, channel: 'ebay' }],
    ['too many keywords', { product: { name: 'x', keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) } }],
    ['keyword too long', { product: { name: 'x', keywords: ['k'.repeat(101)] } }],
    ['features too long', { product: { name: 'x', features: 'f'.repeat(10_001) } }],
    ['unknown field', { product, style: 'bold' }],
  ]
  for (const [name, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, `${name}: ${res.text}`)
    t.equal(res.body.error.code, 'invalid_request', name)
    t.equal(ledger.balance, 100, `${name}: nothing charged`)
  }
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await startFakeOpenAI({ text: () => good })
  t.teardown(() => fake.close())
  providers.use(fakeServerProvider(fake.baseURL))
  const c = await app.customer(12)
  const res = await app.call('/v1/product-copy', { key: c.key, body: { product, channel: 'amazon' } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    titles: good.titles,
    bullets: five,
    description: 'Keeps drinks cold.',
    seoKeywords: ['insulated bottle', 'Leak Proof', 'water bottle', 'hiking'],
    usage: { credits: 5, balanceRemaining: 7 },
  })
  t.equal(fake.requests.length, 1)
})
