import t from 'tap'
import type { ImageModel } from 'ai'
import { MockImageModelV3 } from 'ai/test'
import { checkManifest } from '../../core/registry.ts'
import { fakeServerProvider, startTestApp } from '../../test/helpers/app.ts'
import { makeWav, startFakeOpenAI, TINY_PNG } from '../../test/helpers/fake-openai.ts'
import { imageDimensions } from './dimensions.ts'
import { SIZES } from './handler.ts'
import manifest from './manifest.ts'

// Only this folder is served: the test does not depend on other capability folders booting.
const capabilities = [checkManifest(manifest as never, 'image', 'capabilities/image')]

// A baseline JPEG header: SOI, APP0 (JFIF), SOF0 with height 480 and width 640.
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
  0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 1, 1, 0x11, 0,
  0xff, 0xd9,
])

function mockImage(bytes: Uint8Array, providerMetadata?: Record<string, unknown>): ImageModel {
  return new MockImageModelV3({
    doGenerate: async () => ({
      images: [bytes],
      warnings: [],
      response: { timestamp: new Date(), modelId: 'mock', headers: undefined },
      ...(providerMetadata ? { providerMetadata: providerMetadata as never } : {}),
    }),
  })
}

t.test('image dimensions from headers', async (t) => {
  t.same(imageDimensions(TINY_PNG, 'image/png'), { width: 1, height: 1 })
  t.same(imageDimensions(JPEG, 'image/jpeg'), { width: 640, height: 480 })
  t.equal(imageDimensions(JPEG.subarray(0, 24), 'image/jpeg'), null, 'truncated')
  t.equal(imageDimensions(Buffer.from('GIF89a'), 'image/gif'), null)
})

t.test('image', async (t) => {
  const fake = await startFakeOpenAI()
  t.teardown(() => fake.close())
  const real = fakeServerProvider(fake.baseURL)
  let model: ImageModel | null = null
  const provider = { ...real, image: () => model ?? real.image() }
  const app = await startTestApp(t, { capabilities, provider })
  const c = await app.customer(1000)
  const call = (body: unknown) => app.call('/v1/image', { key: c.key, body })

  await t.test('through the fake OpenAI server: aspect ratio → size, style in the prompt', async (t) => {
    const r = await call({ prompt: 'A lighthouse at dawn', style: 'watercolor', aspectRatio: '16:9' })
    t.equal(r.status, 200, r.text)
    t.same(Buffer.from(r.body.image, 'base64'), TINY_PNG)
    t.equal(r.body.mimeType, 'image/png')
    t.equal(r.body.size, '1536x1024')
    t.same([r.body.width, r.body.height], [1, 1], 'measured from the bytes')
    t.equal(r.body.revisedPrompt, 'A lighthouse at dawn\n\nStyle: watercolor', 'the provider revised_prompt is passed on')
    t.same(r.body.usage, { credits: 10, balanceRemaining: 990 })
    const sent = fake.requests.at(-1)!
    t.equal(sent.path, '/v1/images/generations')
    t.match(sent.body, { model: 'test-image', size: '1536x1024', n: 1, prompt: /lighthouse.*\n\nStyle: watercolor/s })
  })

  await t.test('every aspect ratio maps to a supported size', async (t) => {
    t.same(SIZES, { '1:1': '1024x1024', '16:9': '1536x1024', '4:3': '1536x1024', '9:16': '1024x1536', '3:4': '1024x1536' })
    const r = await call({ prompt: 'A cat' })
    t.equal(r.body.size, '1024x1024', 'default 1:1')
    t.equal(fake.requests.at(-1)!.body.size, '1024x1024')
  })

  await t.test('the media type comes from the bytes', async (t) => {
    model = mockImage(JPEG, { openai: { images: [{ revisedPrompt: '  a better prompt ' }] } })
    const r = await call({ prompt: 'A cat', aspectRatio: '3:4' })
    t.equal(r.status, 200, r.text)
    t.equal(r.body.mimeType, 'image/jpeg')
    t.same([r.body.width, r.body.height, r.body.size], [640, 480, '1024x1536'])
    t.equal(r.body.revisedPrompt, 'a better prompt')
    model = mockImage(TINY_PNG)
    const plain = await call({ prompt: 'A cat' })
    t.notOk('revisedPrompt' in plain.body, 'absent when the provider gives none')
  })

  await t.test('provider failures are 502 and free', async (t) => {
    const before = await app.ledger(c.accountId)
    for (const bytes of [makeWav(0.1), Buffer.from('<html>error</html>'), new Uint8Array()]) {
      model = mockImage(bytes)
      const r = await call({ prompt: 'A cat' })
      t.equal(r.status, 502, r.text)
      t.equal(r.body.error.code, 'inference_failed')
    }
    model = new MockImageModelV3({
      doGenerate: async () => {
        throw new Error('content policy violation, key sk-secret')
      },
    })
    const r = await call({ prompt: 'A cat' })
    t.equal(r.status, 502)
    t.notMatch(r.text, /sk-secret/)
    t.same(await app.ledger(c.accountId), before)
    model = null
  })

  await t.test('bad input is 400 and free', async (t) => {
    const before = await app.ledger(c.accountId)
    const n = fake.requests.length
    for (const body of [
      {},
      { prompt: '' },
      { prompt: '   ' },
      { prompt: 'x'.repeat(4001) },
      { prompt: 'A cat', aspectRatio: '2:1' },
      { prompt: 'A cat', style: 'x'.repeat(201) },
      { prompt: 'A cat', n: 4 },
    ]) {
      const r = await call(body)
      t.equal(r.status, 400, JSON.stringify(body).slice(0, 80))
      t.equal(r.body.error.code, 'invalid_request')
    }
    t.equal(fake.requests.length, n, 'no provider call')
    t.same(await app.ledger(c.accountId), before)
  })
})
