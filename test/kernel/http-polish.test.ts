// What an integrator reads in the answers themselves: a oneOf of alternatives refused in words, Service-Dry-Run:
// 0 as no dry run, a refused callbackUrl that names the development switch, the /docs links as pages (not raw
// Markdown), and an icon at /favicon.ico. (405 with Allow and a 202 with Location and credits.held are walked in
// surface-fuzz.test.ts and jobs.test.ts.)
import t from 'tap'
import { mockProvider, startTestApp } from '../helpers/app.ts'

const classified = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing problem.' }
const app = await startTestApp(t, { provider: mockProvider(() => classified) })
const c = await app.customer(100)

t.test('a oneOf of alternatives is refused in words: which to give, and what was given', async (t) => {
  const none = await app.call('/v1/parse', { key: c.key, body: {} })
  t.equal(none.status, 400)
  t.same(none.body.error.details, [{ path: '/', message: 'give exactly one of file, fileUrl, text (got none)' }])
  const two = await app.call('/v1/parse', { key: c.key, body: { text: 'a', fileUrl: 'https://example.com/a.pdf' } })
  t.same(two.body.error.details, [{ path: '/', message: 'give exactly one of file, fileUrl, text (got fileUrl and text)' }])
  const image = await app.call('/v1/describe', { key: c.key, body: {} })
  t.same(image.body.error.details, [{ path: '/', message: 'give exactly one of imageUrl, image (got none)' }])
  const nested = await app.call('/v1/compare', { key: c.key, body: { a: { text: 'x' }, b: {} } })
  t.match(
    nested.body.error.details,
    [{ path: '/b', message: 'give exactly one of file, fileUrl, text (got none)' }],
    'inside a property too',
  )
  t.notMatch(JSON.stringify([none, two, image, nested].map((r) => r.body)), /must match exactly one schema/)
})

t.test('Service-Dry-Run: 0 or false is a live call, as without the header; anything else but 1 or true is a 400', async (t) => {
  const body = { text: 'I was charged twice', labels: ['billing', 'technical'] }
  for (const value of ['0', 'false', 'FALSE']) {
    const res = await app.call('/v1/classify', { key: c.key, body, headers: { 'service-dry-run': value } })
    t.equal(res.status, 200, value)
    t.equal(res.body.dryRun, undefined, `${value}: not a dry run`)
    t.equal(res.body.usage.credits, 2, `${value}: charged as live`)
  }
  const odd = await app.call('/v1/classify', { key: c.key, body, headers: { 'service-dry-run': 'maybe' } })
  t.equal(odd.status, 400)
  t.match(odd.body.error, { code: 'invalid_request', details: [{ path: 'header:Service-Dry-Run' }] })
})

t.test('a callbackUrl on loopback is refused naming CALLBACKS_ALLOW_PRIVATE', async (t) => {
  const res = await app.call('/v1/parse', {
    key: c.key,
    body: { text: 'Invoice 1', async: true, callbackUrl: 'https://127.0.0.1:9/hook' },
  })
  t.equal(res.status, 400)
  t.match(res.body.error, { code: 'invalid_callback_url', message: /CALLBACKS_ALLOW_PRIVATE=true/, details: [{ path: '/callbackUrl' }] })
})

t.test('/docs links serve the documents as HTML pages; /favicon.ico is an icon', async (t) => {
  const reference = await (await fetch(`${app.url}/docs`)).text()
  for (const name of ['api.md', 'examples.md', 'contract.md']) {
    t.match(reference, `href="/docs/${name}"`, `/docs links ${name}`)
    const res = await fetch(`${app.url}/docs/${name}`)
    t.equal(res.status, 200, name)
    t.match(res.headers.get('content-type'), /^text\/html/, `${name}: a page`)
    t.ok(res.headers.get('content-security-policy'), `${name}: under the reference's CSP`)
    const page = await res.text()
    t.match(page, /<h1 id="[\w-]+">/, `${name}: its headings`)
    t.notMatch(page, /^\|.*\|$/m, `${name}: no raw table`)
    t.notMatch(page, /^#{1,6} /m, `${name}: no raw heading`)
    t.notMatch(page, /<script/i, `${name}: nothing runs`)
  }
  t.match(await (await fetch(`${app.url}/docs/api.md`)).text(), /<table>/, 'tables become tables')
  const examples = await (await fetch(`${app.url}/docs/examples.md`)).text()
  t.match(examples, /<pre><code class="language-sh">curl /, 'code blocks stay code')
  t.match(examples, /&quot;|&#39;|&lt;/, 'and are escaped')
  const icon = await fetch(`${app.url}/favicon.ico`)
  t.equal(icon.status, 200)
  t.equal(icon.headers.get('content-type'), 'image/x-icon')
  const bytes = Buffer.from(await icon.arrayBuffer())
  t.same([...bytes.subarray(0, 6)], [0, 0, 1, 0, 1, 0], 'an ICO with one image')
  t.equal(bytes.readUInt32LE(18) + bytes.readUInt32LE(14), bytes.length, 'whose image fills the file')
})
