import { createOpenAI } from '@ai-sdk/openai'
import type { Tool } from 'ai'
import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'
import { inlineCitations, publicHref, urlKey } from '../../core/capability.ts'

// Every subtest starts on the fake OpenAI-compatible server (Responses API, with its web search).
const cap = await capabilityHarness(t, manifest, { via: 'responses' })
const fake = cap.fake

const A = { url: 'https://www.example.com/a', title: 'Report A' }
const B = { url: 'https://example.org/b?id=1', title: 'B' }
const D = { url: 'https://news.example.net/d', title: '' }

t.test('URL helpers', async (t) => {
  t.equal(urlKey('https://WWW.Example.com/a/?utm_source=openai#top'), 'example.com/a')
  t.equal(urlKey('ftp://example.com/'), null)
  t.equal(
    publicHref('https://user:pw@Bücher.de/a|b c?q=[1]&p=50%'),
    'https://xn--bcher-kva.de/a%7Cb%20c?q=%5B1%5D&p=50%25',
    'a valid uri for the response schema',
  )
  t.equal(publicHref('javascript:alert(1)'), null)
  t.same(inlineCitations('Sales rose ([example.com](https://example.com/a?utm_source=openai)). See [the report](https://example.org/b).'), {
    text: 'Sales rose. See the report.',
    urls: ['https://example.com/a?utm_source=openai', 'https://example.org/b'],
  })
})

/** The fake model: notes for the search call (the one with the web search tool), then `answer` for the brief. */
const model = (answer: unknown) => (req: { tools: string[] }) =>
  req.tools.includes('web_search') ? { notes: 'Page A says sales rose; page B lists subsidies.' } : answer

t.test('sources come only from the search; findings cite them by number, re-mapped to indexes by code', async (t) => {
  fake.set({
    // The search returns A twice (tracking parameter, fragment) and an untitled D.
    webSearch: [A, B, { url: 'https://example.com/a?utm_source=openai#x', title: 'A again' }, D],
    text: model({
      brief: 'Short answer ([example.com](https://www.example.com/a)).',
      findings: [
        { finding: 'Fact one.', sources: [1, 1] },
        { finding: 'Fact two ([example.org](https://example.org/b?id=1)) and [news](https://news.example.net/d/).', sources: [3, 2] },
        { finding: 'Fact one.', sources: [2] },
      ],
    }),
  })
  const call = await cap.call({ query: 'heat pumps in Europe', focus: 'policy' })
  cap.expectCharged(t, call)
  t.same(
    call.res.body,
    {
      brief: 'Short answer.',
      findings: [
        { finding: 'Fact one.', sourceIndexes: [0] },
        { finding: 'Fact two and news.', sourceIndexes: [1, 2] },
      ],
      sources: [A, B, { url: D.url, title: 'news.example.net' }],
      usage: { credits: 50, balanceRemaining: 50, livemode: true },
    },
    'duplicate findings and citations dropped, duplicate sources merged, inline links become their labels',
  )
  const [search, brief] = fake.requests.slice(-2)
  t.same(search!.body.tools, [{ type: 'web_search' }], 'the first call searches')
  t.equal(brief!.body.tools, undefined, 'the second call does not')
  const citation = brief!.body.text.format.schema.properties.findings.items.properties.sources
  t.match(citation, { minItems: 1, items: { minimum: 1, maximum: 3 } }, 'citations are numbers of the sources found')
  t.match(JSON.stringify(brief!.body), '[3] news.example.net: https://news.example.net/d')
  t.match(JSON.stringify(brief!.body), '3 to 6 findings')
})

t.test('depth deep asks for a broader search', async (t) => {
  fake.set({ webSearch: [A], text: model({ brief: 'b', findings: [{ finding: 'f', sources: [1] }] }) })
  const { res } = await cap.call({ query: 'q', depth: 'deep' })
  t.equal(res.status, 200, res.text)
  t.match(JSON.stringify(fake.requests.at(-1)!.body), '6 to 12 findings')
})

t.test('answers that cannot be grounded are failed calls, charged nothing', async (t) => {
  const cases: Array<[string, Array<{ url: string; title: string }> | undefined, unknown]> = [
    ['the search returned no sources', undefined, { brief: 'b', findings: [{ finding: 'f', sources: [1] }] }],
    ['a source number beyond the sources found', [A, B], { brief: 'b', findings: [{ finding: 'f', sources: [3] }] }],
    ['a finding citing nothing', [A], { brief: 'b', findings: [{ finding: 'f', sources: [] }] }],
    ['empty brief', [A], { brief: ' ', findings: [{ finding: 'f', sources: [1] }] }],
    ['no findings at all', [A], { brief: 'b', findings: [] }],
    ['URLs instead of numbers', [A], { brief: 'b', findings: [{ finding: 'f', sourceUrls: [A.url] }] }],
  ]
  for (const [name, webSearch, answer] of cases) {
    fake.set({ webSearch, text: model(answer) })
    await cap.expectRefused(t, { query: 'q' }, { status: 502, code: 'inference_failed', why: name })
  }
  fake.set({ webSearch: [A], text: model({ brief: 'b', findings: [{ finding: '([a](https://www.example.com/a))', sources: [1] }] }) })
  await cap.expectRefused(
    t,
    { query: 'q' },
    {
      status: 502,
      code: 'inference_failed',
      why: 'a finding that is only a link',
      message: /broke a rule.*finding 1 has no text besides links/,
    },
  )
})

t.test('no web search: 503 inference_unavailable, charged nothing', async (t) => {
  await cap.useFake({ wire: 'chat' })
  const before = fake.requests.length
  await cap.expectRefused(t, { query: 'q' }, { status: 503, code: 'inference_unavailable', why: 'the chat wire API' })
  t.equal(fake.requests.length, before, 'the chat wire API is never called')

  cap.useMock()
  cap.use({ configured: false })
  await cap.expectRefused(t, { query: 'q' }, { status: 503, code: 'inference_unavailable', why: 'no provider configured' })
})

t.test('a provider whose search reports nothing (mock model) fails free', async (t) => {
  const tool = createOpenAI({ apiKey: 'x' }).tools.webSearch({}) as Tool
  cap.useMock()
  cap.reply({ notes: 'n' })
  cap.use({ webSearch: () => tool })
  await cap.expectRefused(t, { query: 'q' }, { status: 502, code: 'inference_failed', why: 'no sources reported' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no query', { focus: 'x' }],
    ['empty query', { query: '' }],
    ['query too long', { query: 'q'.repeat(2001) }],
    ['focus too long', { query: 'q', focus: 'f'.repeat(2001) }],
    ['unknown depth', { query: 'q', depth: 'extreme' }],
    ['unknown field', { query: 'q', sources: 5 }],
    ['async', { query: 'q', async: true }],
  ],
})
