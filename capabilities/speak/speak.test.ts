import t from 'tap'
import type { SpeechModel } from 'ai'
import { MockSpeechModelV3 } from 'ai/test'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { makeWav, TINY_PNG } from '../../devkit/fake-openai.ts'
import { audioDuration, mp3Duration, wavDuration } from './duration.ts'
import manifest from './manifest.ts'

/** MPEG-1 Layer III frames: 128 kbps at 44.1 kHz is 417 bytes (+1 padded), 1152 samples each. */
function mp3(frames: number, opts: { id3?: boolean; xing?: boolean } = {}): Buffer {
  const frame = (padded: boolean) => {
    const f = Buffer.alloc(padded ? 418 : 417)
    f.set([0xff, 0xfb, padded ? 0x92 : 0x90, 0x64])
    return f
  }
  const parts: Buffer[] = []
  if (opts.id3) {
    const tag = Buffer.alloc(10 + 300)
    tag.write('ID3', 0)
    tag.set([4, 0, 0, 0, 0, 2, 0x2c], 3) // v2.4, size 300 as sync-safe (2*128 + 44)
    parts.push(tag)
  }
  if (opts.xing) {
    const x = frame(false)
    x.write('Xing', 36)
    parts.push(x)
  }
  for (let i = 0; i < frames; i++) parts.push(frame(i % 3 === 0))
  return Buffer.concat(parts)
}

function mockSpeech(bytes: Uint8Array): SpeechModel {
  return new MockSpeechModelV3({
    doGenerate: async () => ({ audio: bytes, warnings: [], response: { timestamp: new Date(), modelId: 'mock' } }),
  })
}

t.test('durations measured from the audio', async (t) => {
  t.equal(wavDuration(makeWav(0.5)), 0.5)
  t.equal(wavDuration(makeWav(2, 16000)), 2)
  const streamed = makeWav(1)
  streamed.writeUInt32LE(0xffffffff, 40) // streamed WAV: unknown data size
  t.equal(wavDuration(streamed), 1)
  t.equal(audioDuration(mp3(100), 'audio/mpeg'), Math.round((100 * 1152 * 1000) / 44100) / 1000)
  t.equal(mp3Duration(mp3(10, { id3: true, xing: true })), (10 * 1152) / 44100, 'ID3 tag skipped, Xing frame not counted')
  t.equal(mp3Duration(Buffer.from('nothing here')), null)
  t.equal(audioDuration(Buffer.from('OggS'), 'audio/ogg'), null, 'other formats: not measured')
})

// Speech comes from the fake OpenAI server unless a subtest swaps in an ai SDK mock speech model.
const cap = await capabilityHarness(t, manifest, { via: 'responses', funds: 1000 })
const fake = cap.fake
const useSpeech = (model: SpeechModel) => cap.use({ speech: () => model })

t.test('through the fake OpenAI server: mp3 by default', async (t) => {
  const { res: r } = await cap.call({ text: 'Your order has shipped.' })
  t.equal(r.status, 200, r.text)
  t.equal(r.body.mimeType, 'audio/mpeg')
  t.equal(r.body.durationSec, Math.round((20 * 1152 * 1000) / 44100) / 1000, 'frames walked')
  t.ok(Buffer.from(r.body.audio, 'base64').length > 1000)
  t.same(r.body.usage, { credits: 5, balanceRemaining: 995, livemode: true })
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/audio/speech')
  t.match(sent.body, { model: 'test-speech', input: 'Your order has shipped.', voice: 'alloy', response_format: 'mp3' })
  t.notOk('speed' in sent.body, 'normal pace sends no speed')
  t.notOk('instructions' in sent.body)
})

t.test('wav, voice, pace → speed, instructions', async (t) => {
  const { res: r } = await cap.call({ text: 'Hello there', voice: 'nova', pace: 'slow', format: 'wav', instructions: 'warm and calm' })
  t.equal(r.status, 200, r.text)
  t.equal(r.body.mimeType, 'audio/wav')
  t.equal(r.body.durationSec, 0.5)
  t.match(fake.requests.at(-1)!.body, { voice: 'nova', speed: 0.85, response_format: 'wav', instructions: 'warm and calm' })
  await cap.call({ text: 'Hello there', pace: 'fast' })
  t.equal(fake.requests.at(-1)!.body.speed, 1.2)
})

t.test('the media type comes from the bytes, not the request', async (t) => {
  useSpeech(mockSpeech(makeWav(1.25)))
  const { res: r } = await cap.call({ text: 'Hello', format: 'mp3' })
  t.equal(r.status, 200, r.text)
  t.same([r.body.mimeType, r.body.durationSec], ['audio/wav', 1.25])
  useSpeech(mockSpeech(mp3(5, { id3: true })))
  const { res: tagged } = await cap.call({ text: 'Hello' })
  t.same([tagged.body.mimeType, tagged.body.durationSec], ['audio/mpeg', Math.round((5 * 1152 * 1000) / 44100) / 1000])
  useSpeech(mockSpeech(Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)])))
  const { res: ogg } = await cap.call({ text: 'Hello' })
  t.equal(ogg.body.mimeType, 'audio/ogg')
  t.notOk('durationSec' in ogg.body, 'omitted where it cannot be measured')
})

t.test('provider failures are 502 and free', async (t) => {
  for (const [why, bytes] of [
    ['raw PCM: no container', Buffer.alloc(4800)],
    ['PNG bytes', TINY_PNG],
    ['no bytes', new Uint8Array()],
  ] as const) {
    useSpeech(mockSpeech(bytes))
    await cap.expectRefused(t, { text: 'Hello' }, { status: 502, code: 'inference_failed', why })
  }
  useSpeech(
    new MockSpeechModelV3({
      doGenerate: async () => {
        throw new Error('upstream 500 from 10.1.2.3')
      },
    }),
  )
  const { res: r } = await cap.expectRefused(t, { text: 'Hello' }, { status: 502, code: 'inference_failed', why: 'a provider error' })
  t.notMatch(r.text, /10\.1\.2\.3/)
})

t.test('bad input is 400 and free', async (t) => {
  const n = fake.requests.length
  for (const body of [
    {},
    { text: '' },
    { text: ' \n ' },
    { text: 'x'.repeat(4097) },
    { text: 'Hi', voice: 'darth' },
    { text: 'Hi', pace: 'ludicrous' },
    { text: 'Hi', format: 'pcm' },
    { text: 'Hi', instructions: 'x'.repeat(1001) },
    { text: 'Hi', speed: 2 },
  ]) {
    await cap.expectRefused(t, body)
  }
  t.equal(fake.requests.length, n, 'no provider call')
})
