import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Resolver } from '../../core/capability.ts'
import { TINY_PNG, type FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { findExcerpt } from './handler.ts'
import manifest from './manifest.ts'

// An image host on loopback, reachable as img.test. Loopback is private, so this app allows private addresses
// (as CALLBACKS_ALLOW_PRIVATE does in development); the guard still runs (resolution, schemes, credentials, limits).
const images = createServer((req, res) => {
  if (req.url === '/cat.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG)
  if (req.url === '/lying.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end('<html>not an image</html>')
  if (req.url === '/empty.png') return res.writeHead(200, { 'content-type': 'image/png' }).end()
  res.writeHead(404).end()
})
await new Promise<void>((r) => images.listen(0, '127.0.0.1', r))
t.teardown(() => new Promise((r) => images.close(r)))
const host = `http://img.test:${(images.address() as AddressInfo).port}`
const resolver: Resolver = async (name) => (name === 'img.test' ? [{ address: '127.0.0.1', family: 4 }] : [])

// The ai SDK mock answers (guarantees) unless a subtest moves to the fake OpenAI-compatible server (happy path).
const cap = await capabilityHarness(t, manifest, { resolver, config: { callbacksAllowPrivate: true }, funds: 10 })

const PRICE = 2
const text = 'Great product.   Buy cheap FOLLOWERS now!!! Contact spam@example.com'
const png = { data: TINY_PNG.toString('base64'), mimeType: 'image/png' }

t.test('findExcerpt quotes the text, ignoring case and whitespace runs', async (t) => {
  t.equal(findExcerpt(text, 'Buy cheap FOLLOWERS'), 'Buy cheap FOLLOWERS')
  t.equal(findExcerpt(text, 'great product. buy cheap'), 'Great product.   Buy cheap')
  t.equal(findExcerpt(text, 'buy fake followers'), null)
  t.equal(findExcerpt(text, '  '), null)
  t.equal(findExcerpt('a (b) [c]?', '(B) [c]?'), '(b) [c]?', 'regex characters are literal')
})

t.test('flagged is computed from decision; excerpts are real quotes; categories merged', async (t) => {
  cap.reply({
    decision: 'allow',
    categories: [
      { category: 'Spam', severity: 'low', excerpt: 'buy cheap followers now' },
      { category: ' spam ', severity: 'high', excerpt: 'invented quote' },
      { category: 'personal data', severity: 'medium', excerpt: null },
    ],
    rationale: ' Mild promotion. ',
  })
  const call = await cap.call({ text, policy: 'No spam.' })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    flagged: true,
    decision: 'block', // issue 16: "allow" with a high-severity category is raised to block
    categories: [
      { category: 'Spam', severity: 'high', excerpt: 'Buy cheap FOLLOWERS now' },
      { category: 'personal data', severity: 'medium' },
    ],
    rationale: 'Mild promotion.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  t.match(cap.prompts[0], /No spam\./)

  for (const decision of ['review', 'block']) {
    cap.reply({ decision, categories: [], rationale: 'x' })
    const { res } = await cap.call({ text })
    t.equal(res.status, 200, res.text)
    t.same([res.body.flagged, res.body.decision], [true, decision], `${decision} is flagged`)
  }
})

t.test('issue 16: decision follows the categories by the documented rule', async (t) => {
  const cases: Array<[string, unknown[], string]> = [
    ['allow', [{ category: 'threat', severity: 'high', excerpt: null }], 'block'],
    ['allow', [{ category: 'spam', severity: 'low', excerpt: null }], 'review'],
    ['review', [{ category: 'spam', severity: 'medium', excerpt: null }], 'review'],
    ['block', [{ category: 'spam', severity: 'low', excerpt: null }], 'block'], // never lowered
    ['allow', [], 'allow'],
  ]
  for (const [decision, categories, expected] of cases) {
    cap.reply({ decision, categories, rationale: 'x' })
    const { res } = await cap.call({ text })
    t.equal(res.status, 200, res.text)
    t.same([res.body.decision, res.body.flagged], [expected, expected !== 'allow'], `${decision} with ${JSON.stringify(categories)}`)
  }
})

t.test('categories given: names come back in the caller spelling; anything else is inference_failed', async (t) => {
  cap.reply({ decision: 'block', categories: [{ category: 'SPAM', severity: 'high', excerpt: null }], rationale: 'spam' })
  const ok = await cap.call({ text, categories: ['Spam', 'Harassment'] })
  t.equal(ok.res.status, 200, ok.res.text)
  t.same(ok.res.body.categories, [{ category: 'Spam', severity: 'high' }])

  cap.reply({ decision: 'block', categories: [{ category: 'scam', severity: 'high', excerpt: null }], rationale: 'scam' })
  await cap.expectRefused(
    t,
    { text, categories: ['Spam', 'Harassment'] },
    { status: 502, code: 'inference_failed', why: 'a category outside the list' },
  )
})

t.test('inline image: sniffed from the bytes and sent to the model as an image part', async (t) => {
  cap.reply({
    decision: 'review',
    categories: [{ category: 'nudity', severity: 'medium', excerpt: 'upper left corner' }],
    rationale: 'unclear',
  })
  const { res } = await cap.call({ image: { ...png, mimeType: 'application/octet-stream' } })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.categories,
    [{ category: 'nudity', severity: 'medium', excerpt: 'upper left corner' }],
    'image excerpts are not checked against text',
  )
  t.equal(res.body.flagged, true)
  t.match(cap.prompts[0], /"type":"file"/, 'an image part reached the model')
  t.match(cap.prompts[0], /"mediaType":"image\/png"/, 'with the sniffed type, not the declared one')
})

t.test('imageUrl: fetched under the guard, only images accepted', async (t) => {
  cap.reply({ decision: 'allow', categories: [], rationale: 'a cat' })
  const ok = await cap.call({ imageUrl: `${host}/cat.png` })
  t.equal(ok.res.status, 200, ok.res.text)
  t.same(ok.res.body.flagged, false)
  t.match(cap.prompts[0], /"mediaType":"image\/png"/)

  cap.forbidModel(t)
  const refused: Array<[string, string, RegExp]> = [
    ['bytes that are not an image (whatever the Content-Type says)', `${host}/lying.jpg`, /PNG, JPEG, GIF or WebP/],
    ['an empty body', `${host}/empty.png`, /empty/],
    ['HTTP 404', `${host}/missing.png`, /HTTP 404/],
    ['a host that does not resolve', 'http://nowhere.test/cat.png', /non-public address/],
  ]
  for (const [why, imageUrl, message] of refused) {
    const { res } = await cap.expectRefused(t, { imageUrl }, { status: 422, code: 'unprocessable', message, why })
    t.same(res.body.error?.details?.[0]?.path, '/imageUrl', why)
  }
  await cap.expectRefused(t, { imageUrl: `http://user:pw@img.test/cat.png` }, { why: 'credentials in the URL' })
})

t.test('inline image that is not an image: 422; bad base64: 400; nothing charged', async (t) => {
  cap.forbidModel(t)
  const pdf = { data: Buffer.from('%PDF-1.4\n...').toString('base64'), mimeType: 'image/png' }
  await cap.expectRefused(t, { image: pdf }, { status: 422, code: 'unprocessable', message: /application\/pdf/, why: 'a PDF' })
  await cap.expectRefused(t, { text: '   ' }, { status: 422, code: 'unprocessable', why: 'blank text' })
  const b64 = await cap.expectRefused(t, { image: { data: 'not base64!!', mimeType: 'image/png' } }, { why: 'bad base64' })
  t.same(b64.res.body.error.details, [{ path: '/image/data', message: 'is not valid base64' }])
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['decision outside the enum', { decision: 'flag', categories: [], rationale: 'x' }],
    [
      'severity outside the enum',
      { decision: 'block', categories: [{ category: 'spam', severity: 'critical', excerpt: null }], rationale: 'x' },
    ],
    ['a category without a name', { decision: 'block', categories: [{ category: '  ', severity: 'high', excerpt: null }], rationale: 'x' }],
    ['no rationale', { decision: 'allow', categories: [], rationale: '  ' }],
    ['flagged only (no decision)', { flagged: true, categories: [], rationale: 'x' }],
  ]
  for (const [why, a] of broken) {
    cap.reply(a)
    await cap.expectRefused(t, { text }, { status: 502, code: 'inference_failed', why })
  }
})

capabilitySuite(t, cap, {
  badInput: [
    ['nothing to moderate', { policy: 'No spam.' }],
    ['text and image', { text, image: png }],
    ['text and imageUrl', { text, imageUrl: `${host}/cat.png` }],
    ['image and imageUrl', { image: png, imageUrl: `${host}/cat.png` }],
    ['image without mimeType', { image: { data: png.data } }],
    ['imageUrl not http(s)', { imageUrl: 'ftp://img.test/cat.png' }],
    ['imageUrl not a URL', { imageUrl: 'cat.png' }],
    ['imageUrl over 2,048 characters', { imageUrl: `https://img.test/${'a'.repeat(2040)}` }],
    ['text over 500,000 characters', { text: 'x'.repeat(500_001) }],
    ['policy over 20,000 characters', { text, policy: 'p'.repeat(20_001) }],
    ['empty categories', { text, categories: [] }],
    ['categories equal but for case', { text, categories: ['Spam', 'spam'] }],
    ['unknown field', { text, threshold: 0.5 }],
  ],
})

for (const api of ['responses', 'chat'] as const) {
  t.test(`through the fake OpenAI-compatible server (${api} wire API), with an image from imageUrl`, async (t) => {
    let seen: FakeTextRequest | undefined
    await cap.useFake({
      wire: api,
      text: (req) => (
        (seen = req),
        {
          decision: 'block',
          categories: [{ category: 'violence', severity: 'high', excerpt: 'a weapon in the center' }],
          rationale: 'Shows a weapon.',
        }
      ),
    })
    const call = await cap.call({ imageUrl: `${host}/cat.png`, policy: 'No weapons.' }, { funds: 5 })
    cap.expectCharged(t, call)
    t.same(call.res.body, {
      flagged: true,
      decision: 'block',
      categories: [{ category: 'violence', severity: 'high', excerpt: 'a weapon in the center' }],
      rationale: 'Shows a weapon.',
      usage: { credits: PRICE, balanceRemaining: 5 - PRICE, livemode: true },
    })
    t.equal(seen?.api, api)
    t.ok(seen?.jsonSchema, 'asked for structured output')
    t.equal(seen?.files.length, 1, 'one image sent')
    t.equal(seen?.files[0]?.mediaType, 'image/png')
    t.equal(seen?.files[0]?.data, TINY_PNG.toString('base64'), 'the fetched bytes')
    t.match(seen?.system, /No weapons\./)
  })
}
