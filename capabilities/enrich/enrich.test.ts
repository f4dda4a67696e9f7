import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'
import { isFreeMail, normalizeDomain } from './domain.ts'
import { homepageFetch, readHomepage } from './homepage.ts'

// Homepages served on loopback; a test resolver points made-up company hosts at it (C8/C12 guard with
// callbacksAllowPrivate, as in development), and homepageFetch is pointed at its port.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Northwind Logistics &amp; Freight</title>
<meta name="description" content="Freight forwarding for mid-market retailers.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Northwind","sameAs":["https://www.linkedin.com/company/northwind-test/"]}</script>
<style>body{color:red}</style></head>
<body><nav><a href="/about">About</a> <a href="https://twitter.com/intent/tweet?text=hi">Share</a> <a href="https://github.com/northwind-test">GitHub</a></nav>
<h1>We move freight</h1><p>Warehousing in Rotterdam since 2004.</p><!-- hidden comment -->
<script>var tracking = "SCRIPTCONTENT"</script></body></html>`
const pages: Record<string, { status: number; type: string; body: string }> = {
  'northwind-test.com': { status: 200, type: 'text/html; charset=utf-8', body: PAGE },
  'broken-test.com': { status: 500, type: 'text/html', body: 'oops' },
  'pdf-test.com': { status: 200, type: 'application/pdf', body: '%PDF-1.4' },
}
const site = createServer((req, res) => {
  const page = pages[(req.headers.host ?? '').replace(/:\d+$/, '')]
  if (!page) return res.writeHead(404).end()
  res.writeHead(page.status, { 'content-type': page.type }).end(page.body)
})
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r))
t.teardown(() => new Promise((r) => site.close(r)))
const port = (site.address() as AddressInfo).port
homepageFetch.urls = (domain) => [`http://${domain}:${port}/`]

const resolver = async (host: string) => (host in pages ? [{ address: '127.0.0.1', family: 4 as const }] : [])

const cap = await capabilityHarness(t, manifest, { config: { callbacksAllowPrivate: true }, resolver })

const HOMEPAGE = `http://northwind-test.com:${port}/`
/** A model answer whose fields cite `cite` (default: the Northwind homepage as served). */
const profile = (extra: object = {}, cite: string[] = [HOMEPAGE]) => ({
  name: 'Northwind Logistics',
  description: { value: 'Freight forwarding.', sourceUrls: cite },
  industry: { value: 'Logistics', sourceUrls: cite },
  headquarters: { value: 'Rotterdam, Netherlands', sourceUrls: cite },
  employeeRange: { value: '201-500', sourceUrls: cite },
  founded: { value: 2004, sourceUrls: cite },
  links: { linkedin: null, twitter: null, github: null, facebook: null, instagram: null, youtube: null, crunchbase: null },
  ...extra,
})

t.test('domain normalisation and the free-mail list', async (t) => {
  t.same(normalizeDomain('HTTPS://WWW.Acme.COM/about?x=1'), { domain: 'acme.com' })
  t.same(normalizeDomain(' acme.co.uk. '), { domain: 'acme.co.uk' })
  t.same(normalizeDomain('bücher.de'), { domain: 'xn--bcher-kva.de' })
  t.same(normalizeDomain('www.com'), { domain: 'www.com' }, 'www is only dropped before a registrable name')
  t.same(normalizeDomain('10.0.0.1'), { problem: 'ip' })
  t.same(normalizeDomain('intranet.local'), { problem: 'reserved' })
  t.same(normalizeDomain('a_b.com'), { problem: 'invalid' })
  for (const d of [
    'gmail.com',
    'yahoo.co.uk',
    'hotmail.fr',
    'outlook.de',
    'gmx.at',
    'yandex.kz',
    'mail.ru',
    'qq.com',
    '163.com',
    'proton.me',
    'icloud.com',
    'eu.gmail.com',
  ]) {
    t.ok(isFreeMail(d), d)
  }
  for (const d of ['acme.com', 'gmail-tools.com', 'yahoo-inc.example.com', 'mailchimp.com']) t.notOk(isFreeMail(d), d)
  t.same(homepageFetch.budgetMs, 8000)
})

t.test('work email: domain by code, homepage fetched and stripped, grounded true', async (t) => {
  cap.reply(
    profile({
      founded: { value: 2999, sourceUrls: [HOMEPAGE] },
      links: {
        linkedin: null,
        twitter: 'https://twitter.com/northwind',
        github: null,
        facebook: null,
        instagram: null,
        youtube: null,
        crunchbase: 'https://www.crunchbase.com/organization/northwind',
      },
    }),
  )
  const call = await cap.call({ email: 'Dana.Ruiz@Northwind-Test.com' })
  cap.expectCharged(t, call)
  t.same(
    call.res.body,
    {
      name: 'Northwind Logistics',
      domain: 'northwind-test.com',
      description: 'Freight forwarding.',
      industry: 'Logistics',
      headquarters: 'Rotterdam, Netherlands',
      employeeRange: '201-500',
      links: {
        website: `http://northwind-test.com:${port}/`,
        linkedin: 'https://www.linkedin.com/company/northwind-test/',
        github: 'https://github.com/northwind-test',
      },
      grounded: true,
      sources: [{ url: `http://northwind-test.com:${port}/`, title: 'Northwind Logistics & Freight' }],
      usage: { credits: 5, balanceRemaining: 95, livemode: true },
    },
    'founded in the future dropped; links not seen in the evidence dropped; share links are not profiles',
  )
  const prompt = cap.prompts[0]!
  t.match(prompt, 'Title: Northwind Logistics & Freight')
  t.match(prompt, 'Freight forwarding for mid-market retailers.')
  t.match(prompt, 'Warehousing in Rotterdam since 2004.')
  t.notMatch(prompt, 'SCRIPTCONTENT', 'script bodies are not evidence')
  t.notMatch(prompt, 'color:red')
  t.notMatch(prompt, 'hidden comment')
})

t.test('a domain given as a URL is normalised', async (t) => {
  cap.reply(profile())
  const { res } = await cap.call({ domain: 'HTTPS://WWW.Northwind-Test.com/about?x=1' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.domain, 'northwind-test.com')
  t.equal(res.body.grounded, true)
})

t.test('issue 16: a field that cites no fetched evidence is left out, field by field', async (t) => {
  // Before: grounded was true for the whole response while these fields could come from the model's memory.
  cap.reply(
    profile({
      description: { value: 'Freight forwarding.', sourceUrls: [] },
      industry: { value: 'Logistics', sourceUrls: ['https://made-up.example.org/northwind'] },
      headquarters: { value: 'Rotterdam, Netherlands', sourceUrls: [HOMEPAGE] },
      founded: { value: 2004, sourceUrls: ['https://made-up.example.org/'] },
    }),
  )
  const { res } = await cap.call({ domain: 'northwind-test.com' })
  t.equal(res.status, 200, res.text)
  t.same(
    [res.body.description, res.body.industry, res.body.headquarters, res.body.employeeRange, res.body.founded],
    [undefined, undefined, 'Rotterdam, Netherlands', '201-500', undefined],
    'only the fields citing the fetched homepage are kept',
  )
  t.equal(res.body.grounded, true)
})

t.test('no homepage (error status, unresolvable, not HTML) and no search: grounded false, no profile fields', async (t) => {
  for (const domain of ['broken-test.com', 'nowhere-test.com', 'pdf-test.com']) {
    cap.reply(profile({}, [`https://${domain}/`]))
    const { res } = await cap.call({ domain })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.grounded, false, domain)
    for (const k of ['description', 'industry', 'headquarters', 'employeeRange', 'founded'])
      t.notOk(k in res.body, `${domain}: ${k} has no evidence, left out`)
    t.equal(res.body.sources, undefined, domain)
    t.same(res.body.links, { website: `https://${domain}/` }, domain)
    t.match(cap.prompts[0], 'The homepage could not be fetched.')
    t.same(res.body.usage, { credits: 5, balanceRemaining: 95, livemode: true })
  }
})

t.test('free-mail and non-company domains are 422 unprocessable, charged nothing, no model call', async (t) => {
  const cases = [
    { email: 'dana@gmail.com' },
    { email: 'dana@yahoo.co.uk' },
    { email: 'x@gmx.de' },
    { email: 'x@qq.com' },
    { email: 'x@mail.ru' },
    { domain: 'outlook.com' },
    { domain: 'https://www.hotmail.com/' },
    { domain: '163.com' },
    { domain: '127.0.0.1' },
    { domain: 'intranet.local' },
    { email: 'x@corp.internal' },
  ]
  for (const body of cases) {
    cap.reply(profile())
    await cap.expectRefused(t, body, { status: 422, code: 'unprocessable', why: JSON.stringify(body) })
    t.equal(cap.prompts.length, 0)
  }
})

t.test('model answers that break the promises', async (t) => {
  cap.reply(profile({ name: null }))
  let r = await cap.call({ domain: 'northwind-test.com' })
  t.equal(r.res.status, 502, 'a name is always given (the schema says so)')
  t.equal(cap.prompts.length, 2, 'asked once more')
  t.equal(r.ledger.balance, 100)

  cap.reply(profile({ employeeRange: { value: '200-500', sourceUrls: [HOMEPAGE] } }))
  r = await cap.call({ domain: 'northwind-test.com' })
  t.equal(r.res.status, 502, 'employeeRange outside the buckets')
  t.equal(r.res.body.error.code, 'inference_failed')
  t.equal(r.ledger.balance, 100)

  cap.reply(profile({ grounded: true, domain: 'evil.com' }))
  r = await cap.call({ domain: 'broken-test.com' })
  t.equal(r.res.status, 502, "extra fields (grounded, domain) are not the model's to give")
  t.equal(r.ledger.balance, 100)

  cap.reply(profile({ name: '  ', links: { linkedin: 'https://www.linkedin.com/company/made-up/' } }))
  r = await cap.call({ domain: 'northwind-test.com' })
  t.equal(r.res.status, 502, 'links missing platforms')
})

capabilitySuite(t, cap, {
  badInput: [
    ['neither', {}],
    ['both', { domain: 'acme.com', email: 'a@acme.com' }],
    ['not an email', { email: 'acme.com' }],
    ['no dot', { domain: 'acme' }],
    ['an email in domain', { domain: 'a@acme.com' }],
    ['domain too long', { domain: `${'a'.repeat(2045)}.com` }],
    ['email too long', { email: `${'a'.repeat(320)}@acme.com` }],
    ['bad label', { domain: 'acme..com' }],
    ['unknown field', { domain: 'acme.com', company: 'Acme' }],
  ],
})

t.test('readHomepage survives hostile markup', async (t) => {
  const nasty = Buffer.from(`<title>x</title>${'<a '.repeat(100_000)}`)
  const started = performance.now()
  t.ok(readHomepage(nasty, 'text/html', 'https://x.com/'))
  t.ok(performance.now() - started < 1000, 'linear time')
  t.equal(readHomepage(Buffer.from('<html><body>   </body></html>'), 'text/html', 'https://x.com/'), null, 'no text, no evidence')
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  t.test('responses API: web search sources ground the answer when the homepage is down', async (t) => {
    const fake = await cap.useFake({
      text: () =>
        profile(
          {
            links: {
              linkedin: 'https://www.linkedin.com/company/broken-test',
              twitter: null,
              github: null,
              facebook: null,
              instagram: null,
              youtube: null,
              crunchbase: null,
            },
          },
          ['https://www.linkedin.com/company/broken-test'],
        ),
      webSearch: [
        { url: 'https://www.linkedin.com/company/broken-test', title: 'Broken Test | LinkedIn' },
        { url: 'https://news.example.org/broken-test', title: 'News' },
        { url: 'https://news.example.org/broken-test#top', title: 'News again' },
      ],
    })
    const call = await cap.call({ domain: 'broken-test.com' }, { funds: 5 })
    cap.expectCharged(t, call)
    const { res } = call
    t.equal(res.body.grounded, true)
    t.equal(res.body.industry, 'Logistics', 'a field citing a search result is kept')
    t.same(res.body.links, { website: 'https://broken-test.com/', linkedin: 'https://www.linkedin.com/company/broken-test' })
    t.same(res.body.sources, [
      { url: 'https://www.linkedin.com/company/broken-test', title: 'Broken Test | LinkedIn' },
      { url: 'https://news.example.org/broken-test', title: 'News' },
    ])
    t.same(fake.requests.at(-1)?.body.tools, [{ type: 'web_search' }])
  })

  t.test('chat wire API: no web search, homepage only', async (t) => {
    await cap.useFake({ wire: 'chat', text: () => profile(), webSearch: [{ url: 'https://unused.example.org/', title: 'x' }] })
    const c = await cap.customer(10)
    let res = await cap.post(c, { domain: 'northwind-test.com' })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.grounded, true)
    t.equal(res.body.sources.length, 1)
    res = await cap.post(c, { domain: 'broken-test.com' })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.grounded, false)
    t.same(res.body.usage, { credits: 5, balanceRemaining: 0, livemode: true })
  })
})
