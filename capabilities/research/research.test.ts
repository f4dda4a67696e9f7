import { createOpenAI } from '@ai-sdk/openai'
import type { Tool } from 'ai'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import { checkManifest } from '../../core/registry.ts'
import manifest from './manifest.ts'
import { inlineCitations, publicHref, urlKey } from '../../core/models/sources.ts'

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

const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const responses = fakeServerProvider(fake.baseURL)
const providers = switchable(responses)
// Only this folder is served: the test does not depend on other capability folders booting.
const capabilities = [checkManifest(manifest as never, 'research', 'capabilities/research')]
const app = await startTestApp(t, { capabilities, provider: providers.provider })
t.beforeEach(() => providers.use(responses))

const A = { url: 'https://www.example.com/a', title: 'Report A' }
const B = { url: 'https://example.org/b?id=1', title: 'B' }
const D = { url: 'https://news.example.net/d', title: '' }
const NOT_SEARCHED = 'https://made-up.example.io/x'

async function call(body: unknown, credits = 100) {
  const c = await app.customer(credits)
  const res = await app.call('/v1/research', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('URL helpers', async (t) => {
  t.equal(urlKey('https://WWW.Example.com/a/?utm_source=openai#top'), 'example.com/a')
  t.equal(urlKey('ftp://example.com/'), null)
  t.equal(publicHref('https://user:pw@Bücher.de/a|b c?q=[1]&p=50%'), 'https://xn--bcher-kva.de/a%7Cb%20c?q=%5B1%5D&p=50%25', 'a valid uri for the response schema')
  t.equal(publicHref('javascript:alert(1)'), null)
  t.same(inlineCitations('Sales rose ([example.com](https://example.com/a?utm_source=openai)). See [the report](https://example.org/b).'), {
    text: 'Sales rose. See the report.',
    urls: ['https://example.com/a?utm_source=openai', 'https://example.org/b'],
  })
})

t.test('sources come only from the search; sourceIndexes re-mapped by code', async (t) => {
  fake.set({
    // The search returns A twice (tracking parameter, fragment) and an untitled D.
    webSearch: [A, B, { url: 'https://example.com/a?utm_source=openai#x', title: 'A again' }, D],
    text: () => ({
      brief: 'Short answer ([example.com](https://www.example.com/a)).',
      findings: [
        { finding: 'Fact one.', sourceUrls: ['https://example.com/a?utm_source=openai', NOT_SEARCHED] },
        { finding: 'Fact two ([example.org](https://example.org/b?id=1)) and [news](https://news.example.net/d/).', sourceUrls: [] },
        { finding: 'Fact three, only from memory.', sourceUrls: [NOT_SEARCHED] },
        { finding: 'Fact one.', sourceUrls: [B.url] },
        { finding: 'Fact four with no citation.', sourceUrls: [] },
      ],
    }),
  })
  const { res, ledger } = await call({ query: 'heat pumps in Europe', focus: 'policy' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    brief: 'Short answer.',
    findings: [
      { finding: 'Fact one.', sourceIndexes: [0] },
      { finding: 'Fact two and news.', sourceIndexes: [1, 2] },
    ],
    sources: [A, B, { url: D.url, title: 'news.example.net' }],
    usage: { credits: 50, balanceRemaining: 50 },
  }, 'unknown URLs dropped, uncited and duplicate findings dropped, duplicate sources merged')
  t.equal(ledger.balance, 50)
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/responses')
  t.same(sent.body.tools, [{ type: 'web_search' }])
  t.match(JSON.stringify(sent.body), '3 to 6 findings')
})

t.test('depth deep asks for a broader search', async (t) => {
  fake.set({ webSearch: [A], text: () => ({ brief: 'b', findings: [{ finding: 'f', sourceUrls: [A.url] }] }) })
  const { res } = await call({ query: 'q', depth: 'deep' })
  t.equal(res.status, 200, res.text)
  t.match(JSON.stringify(fake.requests.at(-1)!.body), '6 to 12 findings')
})

t.test('answers that cannot be grounded are failed calls, charged nothing', async (t) => {
  const cases: Array<[string, Array<{ url: string; title: string }> | undefined, unknown]> = [
    ['the search returned no sources', undefined, { brief: 'b', findings: [{ finding: 'f', sourceUrls: [A.url] }] }],
    ['no finding cites a searched URL', [A, B], { brief: 'b', findings: [{ finding: 'f', sourceUrls: [NOT_SEARCHED] }, { finding: 'g', sourceUrls: [] }] }],
    ['empty brief', [A], { brief: ' ', findings: [{ finding: 'f', sourceUrls: [A.url] }] }],
    ['no findings at all', [A], { brief: 'b', findings: [] }],
    ['sourceIndexes from the model are not accepted', [A], { brief: 'b', findings: [{ finding: 'f', sourceIndexes: [0] }] }],
  ]
  for (const [name, webSearch, answer] of cases) {
    fake.set({ webSearch, text: () => answer })
    const { res, ledger } = await call({ query: 'q' })
    t.equal(res.status, 502, `${name}: ${res.text}`)
    t.equal(res.body.error.code, 'inference_failed', name)
    t.equal(ledger.balance, 100, `${name}: nothing charged`)
  }
})

t.test('no web search: 503 inference_unavailable, charged nothing', async (t) => {
  providers.use(fakeServerProvider(fake.baseURL, 'chat'))
  const before = fake.requests.length
  let r = await call({ query: 'q' })
  t.equal(r.res.status, 503, r.res.text)
  t.equal(r.res.body.error.code, 'inference_unavailable')
  t.equal(r.ledger.balance, 100)
  t.equal(fake.requests.length, before, 'the chat wire API is never called')

  providers.use(mockProvider(() => ({}), { configured: false }))
  r = await call({ query: 'q' })
  t.equal(r.res.status, 503, 'no provider configured')
  t.equal(r.ledger.balance, 100)
})

t.test('a provider whose search reports nothing (mock model) fails free', async (t) => {
  const tool = createOpenAI({ apiKey: 'x' }).tools.webSearch({}) as Tool
  providers.use(mockProvider(() => ({ brief: 'b', findings: [{ finding: 'f', sourceUrls: [A.url] }] }), { webSearch: () => tool }))
  const r = await call({ query: 'q' })
  t.equal(r.res.status, 502, r.res.text)
  t.equal(r.ledger.balance, 100)
})

t.test('bad input is 400 invalid_request and charges nothing', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['no query', { focus: 'x' }],
    ['empty query', { query: '' }],
    ['query too long', { query: 'q'.repeat(2001) }],
    ['focus too long', { query: 'q', focus: 'f'.repeat(2001) }],
    ['unknown depth', { query: 'q', depth: 'extreme' }],
    ['unknown field', { query: 'q', sources: 5 }],
    ['async', { query: 'q', async: true }],
  ]
  for (const [name, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, `${name}: ${res.text}`)
    t.equal(res.body.error.code, 'invalid_request', name)
    t.equal(ledger.balance, 100, `${name}: nothing charged`)
  }
})
