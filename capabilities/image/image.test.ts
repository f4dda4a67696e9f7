import t from 'tap'
import type { ImageModel } from 'ai'
import { MockImageModelV3 } from 'ai/test'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { makeWav, TINY_PNG } from '../../devkit/fake-openai.ts'
import { imageDimensions } from './dimensions.ts'
import { SIZES } from './handler.ts'
import manifest from './manifest.ts'

// A baseline JPEG header: SOI, APP0 (JFIF), SOF0 with height 480 and width 640.
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 1, 1,
  0x11, 0, 0xff, 0xd9,
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

// Images come from the fake OpenAI server unless a subtest swaps in an ai SDK mock image model.
const cap = await capabilityHarness(t, manifest, { via: 'responses', funds: 1000 })
const fake = cap.fake
const useImage = (model: ImageModel) => cap.use({ image: () => model })

t.test('through the fake OpenAI server: aspect ratio → size, style in the prompt', async (t) => {
  const { res: r } = await cap.call({ prompt: 'A lighthouse at dawn', style: 'watercolor', aspectRatio: '16:9' })
  t.equal(r.status, 200, r.text)
  t.same(Buffer.from(r.body.image, 'base64'), TINY_PNG)
  t.equal(r.body.mimeType, 'image/png')
  t.equal(r.body.size, '1536x1024')
  t.same([r.body.width, r.body.height], [1, 1], 'measured from the bytes')
  t.equal(r.body.revisedPrompt, 'A lighthouse at dawn\n\nStyle: watercolor', 'the provider revised_prompt is passed on')
  t.same(r.body.usage, { credits: 10, balanceRemaining: 990, livemode: true })
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/images/generations')
  t.match(sent.body, { model: 'test-image', size: '1536x1024', n: 1, prompt: /lighthouse.*\n\nStyle: watercolor/s })
})

t.test('every aspect ratio maps to a supported size', async (t) => {
  t.same(SIZES, { '1:1': '1024x1024', '16:9': '1536x1024', '4:3': '1536x1024', '9:16': '1024x1536', '3:4': '1024x1536' })
  const { res: r } = await cap.call({ prompt: 'A cat' })
  t.equal(r.body.size, '1024x1024', 'default 1:1')
  t.equal(fake.requests.at(-1)!.body.size, '1024x1024')
})

t.test('issue 16: the response says which aspect ratio was produced', async (t) => {
  // Before: 16:9 and 4:3 became 3:2 silently. A provider image of the size asked for (1536x1024) is 3:2.
  const PNG_1536x1024 = Buffer.from(TINY_PNG)
  PNG_1536x1024.writeUInt32BE(1536, 16)
  PNG_1536x1024.writeUInt32BE(1024, 20)
  useImage(mockImage(PNG_1536x1024))
  for (const aspectRatio of ['16:9', '4:3']) {
    const { res: r } = await cap.call({ prompt: 'A cat', aspectRatio })
    t.equal(r.status, 200, r.text)
    t.same([r.body.size, r.body.width, r.body.height, r.body.aspectRatio], ['1536x1024', 1536, 1024, '3:2'], aspectRatio)
  }
  // Measured beats requested: a 640x480 JPEG for a 3:4 request is 4:3, and says so.
  useImage(mockImage(JPEG))
  const { res: r } = await cap.call({ prompt: 'A cat', aspectRatio: '3:4' })
  t.equal(r.body.aspectRatio, '4:3')
})

t.test('the media type comes from the bytes', async (t) => {
  useImage(mockImage(JPEG, { openai: { images: [{ revisedPrompt: '  a better prompt ' }] } }))
  const { res: r } = await cap.call({ prompt: 'A cat', aspectRatio: '3:4' })
  t.equal(r.status, 200, r.text)
  t.equal(r.body.mimeType, 'image/jpeg')
  t.same([r.body.width, r.body.height, r.body.size], [640, 480, '1024x1536'])
  t.equal(r.body.revisedPrompt, 'a better prompt')
  useImage(mockImage(TINY_PNG))
  const { res: plain } = await cap.call({ prompt: 'A cat' })
  t.notOk('revisedPrompt' in plain.body, 'absent when the provider gives none')
})

t.test('provider failures are 502 and free', async (t) => {
  for (const [why, bytes] of [
    ['WAV bytes', makeWav(0.1)],
    ['an HTML page', Buffer.from('<html>error</html>')],
    ['no bytes', new Uint8Array()],
  ] as const) {
    useImage(mockImage(bytes))
    await cap.expectRefused(t, { prompt: 'A cat' }, { status: 502, code: 'inference_failed', why })
  }
  useImage(
    new MockImageModelV3({
      doGenerate: async () => {
        throw new Error('content policy violation, key sk-secret')
      },
    }),
  )
  const { res: r } = await cap.expectRefused(t, { prompt: 'A cat' }, { status: 502, code: 'inference_failed', why: 'a provider error' })
  t.notMatch(r.text, /sk-secret/)
})

t.test('bad input is 400 and free', async (t) => {
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
    await cap.expectRefused(t, body)
  }
  t.equal(fake.requests.length, n, 'no provider call')
})
