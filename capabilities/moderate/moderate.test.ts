import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, TINY_PNG, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import type { Resolver } from '../../core/net/address-guard.ts'
import { findExcerpt } from './handler.ts'

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

// One app per file; the text model is the ai SDK mock (guarantees) or the fake OpenAI server (happy path).
let reply: (prompt: string) => unknown = () => ({})
let fakeReply: (req: FakeTextRequest) => unknown = () => undefined
let viaFake: false | 'responses' | 'chat' = false
const fake = await startFakeOpenAI({ text: (req) => fakeReply(req) })
t.teardown(() => fake.close())
const mock = mockProvider((p) => reply(p))
const wires = { responses: fakeServerProvider(fake.baseURL), chat: fakeServerProvider(fake.baseURL, 'chat') }
const provider: ModelProvider = { ...mock, language: () => (viaFake ? wires[viaFake] : mock).language() }
const app = await startTestApp(t, { provider, resolver, config: { callbacksAllowPrivate: true } })

const PRICE = 2
const text = 'Great product.   Buy cheap FOLLOWERS now!!! Contact spam@example.com'
const png = { data: TINY_PNG.toString('base64'), mimeType: 'image/png' }

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/moderate', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('findExcerpt quotes the text, ignoring case and whitespace runs', async (t) => {
  t.equal(findExcerpt(text, 'Buy cheap FOLLOWERS'), 'Buy cheap FOLLOWERS')
  t.equal(findExcerpt(text, 'great product. buy cheap'), 'Great product.   Buy cheap')
  t.equal(findExcerpt(text, 'buy fake followers'), null)
  t.equal(findExcerpt(text, '  '), null)
  t.equal(findExcerpt('a (b) [c]?', '(B) [c]?'), '(b) [c]?', 'regex characters are literal')
})

t.test('flagged is computed from decision; excerpts are real quotes; categories merged', async (t) => {
  let prompt = ''
  reply = (p) => {
    prompt = p
    return {
      decision: 'allow',
      categories: [
        { category: 'Spam', severity: 'low', excerpt: 'buy cheap followers now' },
        { category: ' spam ', severity: 'high', excerpt: 'invented quote' },
        { category: 'personal data', severity: 'medium', excerpt: null },
      ],
      rationale: ' Mild promotion. ',
    }
  }
  const { res, ledger } = await call({ text, policy: 'No spam.' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    flagged: false,
    decision: 'allow',
    categories: [
      { category: 'Spam', severity: 'high', excerpt: 'Buy cheap FOLLOWERS now' },
      { category: 'personal data', severity: 'medium' },
    ],
    rationale: 'Mild promotion.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  t.equal(ledger.balance, 10 - PRICE)
  t.match(prompt, /No spam\./)

  for (const decision of ['review', 'block']) {
    reply = () => ({ decision, categories: [], rationale: 'x' })
    const { res } = await call({ text })
    t.equal(res.status, 200, res.text)
    t.same([res.body.flagged, res.body.decision], [true, decision], `${decision} is flagged`)
  }
})

t.test('categories given: names come back in the caller spelling; anything else is inference_failed', async (t) => {
  reply = () => ({ decision: 'block', categories: [{ category: 'SPAM', severity: 'high', excerpt: null }], rationale: 'spam' })
  const ok = await call({ text, categories: ['Spam', 'Harassment'] })
  t.equal(ok.res.status, 200, ok.res.text)
  t.same(ok.res.body.categories, [{ category: 'Spam', severity: 'high' }])

  reply = () => ({ decision: 'block', categories: [{ category: 'scam', severity: 'high', excerpt: null }], rationale: 'scam' })
  const bad = await call({ text, categories: ['Spam', 'Harassment'] })
  t.equal(bad.res.status, 502)
  t.equal(bad.res.body.error.code, 'inference_failed')
  t.same([bad.ledger.balance, bad.ledger.reserved], [10, 0], 'nothing charged')
})

t.test('inline image: sniffed from the bytes and sent to the model as an image part', async (t) => {
  let prompt = ''
  reply = (p) => ((prompt = p), { decision: 'review', categories: [{ category: 'nudity', severity: 'medium', excerpt: 'upper left corner' }], rationale: 'unclear' })
  const { res } = await call({ image: { ...png, mimeType: 'application/octet-stream' } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.categories, [{ category: 'nudity', severity: 'medium', excerpt: 'upper left corner' }], 'image excerpts are not checked against text')
  t.equal(res.body.flagged, true)
  t.match(prompt, /"type":"file"/, 'an image part reached the model')
  t.match(prompt, /"mediaType":"image\/png"/, 'with the sniffed type, not the declared one')
})

t.test('imageUrl: fetched under the guard, only images accepted', async (t) => {
  let prompt = ''
  reply = (p) => ((prompt = p), { decision: 'allow', categories: [], rationale: 'a cat' })
  const ok = await call({ imageUrl: `${host}/cat.png` })
  t.equal(ok.res.status, 200, ok.res.text)
  t.same(ok.res.body.flagged, false)
  t.match(prompt, /"mediaType":"image\/png"/)

  reply = () => t.fail('the model must not be called')
  const refused: Array<[string, string, RegExp]> = [
    ['bytes that are not an image (whatever the Content-Type says)', `${host}/lying.jpg`, /PNG, JPEG, GIF or WebP/],
    ['an empty body', `${host}/empty.png`, /empty/],
    ['HTTP 404', `${host}/missing.png`, /HTTP 404/],
    ['a host that does not resolve', 'http://nowhere.test/cat.png', /non-public address/],
  ]
  for (const [why, imageUrl, message] of refused) {
    const { res, ledger } = await call({ imageUrl })
    t.equal(res.status, 422, why)
    t.equal(res.body.error?.code, 'unprocessable', why)
    t.match(res.body.error?.message, message, why)
    t.same(res.body.error?.details?.[0]?.path, '/imageUrl', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
  const creds = await call({ imageUrl: `http://user:pw@img.test/cat.png` })
  t.equal(creds.res.status, 400, 'credentials in the URL')
  t.equal(creds.res.body.error.code, 'invalid_request')
})

t.test('inline image that is not an image: 422; bad base64: 400; nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const pdf = await call({ image: { data: Buffer.from('%PDF-1.4\n...').toString('base64'), mimeType: 'image/png' } })
  t.equal(pdf.res.status, 422)
  t.match(pdf.res.body.error.message, /application\/pdf/)
  t.same([pdf.ledger.balance, pdf.ledger.reserved], [10, 0])
  const blank = await call({ text: '   ' })
  t.equal(blank.res.status, 422, 'blank text')
  const b64 = await call({ image: { data: 'not base64!!', mimeType: 'image/png' } })
  t.equal(b64.res.status, 400)
  t.equal(b64.res.body.error.code, 'invalid_request')
  t.same(b64.res.body.error.details, [{ path: '/image/data', message: 'is not valid base64' }])
  t.same([b64.ledger.balance, b64.ledger.reserved], [10, 0])
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['decision outside the enum', { decision: 'flag', categories: [], rationale: 'x' }],
    ['severity outside the enum', { decision: 'block', categories: [{ category: 'spam', severity: 'critical', excerpt: null }], rationale: 'x' }],
    ['a category without a name', { decision: 'block', categories: [{ category: '  ', severity: 'high', excerpt: null }], rationale: 'x' }],
    ['no rationale', { decision: 'allow', categories: [], rationale: '  ' }],
    ['flagged only (no decision)', { flagged: true, categories: [], rationale: 'x' }],
  ]
  for (const [why, a] of broken) {
    reply = () => a
    const { res, ledger } = await call({ text })
    t.equal(res.status, 502, why)
    t.equal(res.body.error?.code, 'inference_failed', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const bad: Array<[string, unknown]> = [
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
  ]
  for (const [why, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, why)
    t.equal(res.body.error?.code, 'invalid_request', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

for (const api of ['responses', 'chat'] as const) {
  t.test(`through the fake OpenAI-compatible server (${api} wire API), with an image from imageUrl`, async (t) => {
    viaFake = api
    t.teardown(() => void (viaFake = false))
    let seen: FakeTextRequest | undefined
    fakeReply = (req) => ((seen = req), { decision: 'block', categories: [{ category: 'violence', severity: 'high', excerpt: 'a weapon in the center' }], rationale: 'Shows a weapon.' })
    const { res, ledger } = await call({ imageUrl: `${host}/cat.png`, policy: 'No weapons.' }, 5)
    t.equal(res.status, 200, res.text)
    t.same(res.body, {
      flagged: true,
      decision: 'block',
      categories: [{ category: 'violence', severity: 'high', excerpt: 'a weapon in the center' }],
      rationale: 'Shows a weapon.',
      usage: { credits: PRICE, balanceRemaining: 5 - PRICE },
    })
    t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [5 - PRICE, 0, 5 - PRICE])
    t.equal(seen?.api, api)
    t.ok(seen?.jsonSchema, 'asked for structured output')
    t.equal(seen?.files.length, 1, 'one image sent')
    t.equal(seen?.files[0]?.mediaType, 'image/png')
    t.equal(seen?.files[0]?.data, TINY_PNG.toString('base64'), 'the fetched bytes')
    t.match(seen?.system, /No weapons\./)
  })
}
