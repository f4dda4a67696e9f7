import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { makeWav, TINY_PNG } from '../../devkit/fake-openai.ts'
import manifest from './manifest.ts'

const png = { data: TINY_PNG.toString('base64'), mimeType: 'image/png' }
// SOI, JFIF APP0, a 1×1 frame header (SOF0: the server reads the size from it), EOI.
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0,
  0xff, 0xd9,
])

const files = createServer((req, res) => {
  // Content-Type lies on purpose: the bytes decide.
  if (req.url === '/photo') return res.writeHead(200, { 'content-type': 'text/plain' }).end(JPEG)
  if (req.url === '/sound') return res.writeHead(200, { 'content-type': 'image/png' }).end(makeWav(0.1))
  res.writeHead(404).end()
})
await new Promise<void>((r) => files.listen(0, '127.0.0.1', r))
t.teardown(() => new Promise((r) => files.close(r)))
const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`

// The vision model: the ai SDK mock whose answer each test sets, or the fake OpenAI server.
const cap = await capabilityHarness(t, manifest, { config: { callbacksAllowPrivate: true }, funds: 1000 })

t.test('inline image, product purpose: code cleans the answer', async (t) => {
  cap.reply({
    altText: 'Red sneaker,\nside view',
    caption: 'A red sneaker. ',
    detailed: 'Canvas upper, white sole.',
    tags: ['Sneaker', 'sneaker ', 'RED', '', 'shoe', 'canvas', 'footwear'],
    embeddedText: '   ',
  })
  const { res: r } = await cap.call({ image: png, purpose: 'product', maxTags: 3 })
  t.equal(r.status, 200, r.text)
  t.same(r.body, {
    altText: 'Red sneaker, side view',
    caption: 'A red sneaker.',
    detailed: 'Canvas upper, white sole.',
    tags: ['sneaker', 'red', 'shoe'],
    usage: { credits: 3, balanceRemaining: 997, livemode: true },
  })
  t.match(cap.prompts[0], /"type":"file".*"mediaType":"image\/png"|"type":"image"/, 'the image goes to the model')
  t.match(cap.prompts[0], /product/)
})

t.test('imageUrl: fetched, sniffed (Content-Type ignored); alt purpose has no detailed', async (t) => {
  cap.reply({ altText: 'A cat', caption: 'A cat on a mat.', tags: ['cat'], embeddedText: 'WELCOME' })
  const { res: r } = await cap.call({ imageUrl: `${base}/photo` })
  t.equal(r.status, 200, r.text)
  t.same(r.body, { altText: 'A cat', caption: 'A cat on a mat.', tags: ['cat'], embeddedText: 'WELCOME', usage: r.body.usage })
  t.match(cap.prompts[0], /image\/jpeg/)
})

t.test('a product/detailed answer without "detailed" is retried, then 502, free', async (t) => {
  cap.reply({ altText: 'A cat', caption: 'A cat.', tags: [], embeddedText: '' })
  await cap.expectRefused(t, { image: png, purpose: 'detailed' }, { status: 502, code: 'inference_failed', why: 'no "detailed"' })
  t.equal(cap.prompts.length, 2, 'one retry')
})

t.test('through the fake OpenAI server', async (t) => {
  const fake = await cap.useFake({
    text: (req) =>
      req.files.length ? { altText: 'Blue square', caption: 'A blue square.', tags: ['blue', 'Blue'], embeddedText: '' } : { $status: 400 },
  })
  const { res: r } = await cap.call({ image: png, purpose: 'caption' })
  t.equal(r.status, 200, r.text)
  t.same(r.body.tags, ['blue'])
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/responses')
  t.match(JSON.stringify(sent.body), /data:image\/png;base64,iVBORw0KGgo/)
})

t.test('bad input: 400 or 422, and free', async (t) => {
  cap.reply()
  const invalid: unknown[] = [
    {},
    { image: png, imageUrl: `${base}/photo` },
    { image: { data: png.data } },
    { imageUrl: 'file:///etc/passwd' },
    { image: png, purpose: 'poem' },
    { image: png, maxTags: 31 },
    { image: png, context: 'x'.repeat(2001) },
    { image: png, extra: true },
    { image: { data: '***', mimeType: 'image/png' } },
  ]
  for (const body of invalid) await cap.expectRefused(t, body)
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n')
  const heicLike = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(12)])
  const unprocessable: Array<[unknown, RegExp]> = [
    [{ image: { data: pdf.toString('base64'), mimeType: 'image/png' } }, /unsupported image type application\/pdf/],
    [{ image: { data: heicLike.toString('base64'), mimeType: 'image/heic' } }, /unsupported image type image\/heic/],
    [{ image: { data: '', mimeType: 'image/png' } }, /empty/],
    [{ imageUrl: `${base}/sound` }, /unsupported image type audio\/wav/],
    [{ imageUrl: `${base}/nothing` }, /HTTP 404/],
  ]
  for (const [body, message] of unprocessable) await cap.expectRefused(t, body, { status: 422, code: 'unprocessable', message })
  cap.app.services.config.callbacksAllowPrivate = false
  t.teardown(() => void (cap.app.services.config.callbacksAllowPrivate = true))
  await cap.expectRefused(
    t,
    { imageUrl: `${base}/photo` },
    { status: 422, code: 'unprocessable', message: /non-public address/, why: 'a private address' },
  )
  t.equal(cap.prompts.length, 0, 'no model call for bad input')
})
