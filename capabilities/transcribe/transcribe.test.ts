import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { TranscriptionModel } from 'ai'
import { MockTranscriptionModelV3 } from 'ai/test'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { makeWav, TINY_PNG } from '../../devkit/fake-openai.ts'
import { clock, speakersOf, toSegments } from './handler.ts'
import manifest from './manifest.ts'
const wav = (seconds = 0.5) => ({ data: makeWav(seconds).toString('base64'), mimeType: 'audio/wav' })

t.test('MM:SS and segments are computed by code', async (t) => {
  t.equal(clock(0), '00:00')
  t.equal(clock(59.99), '00:59')
  t.equal(clock(61), '01:01')
  t.equal(clock(75 * 60 + 3.7), '75:03', 'minutes go past 59')
  t.equal(clock(-3), '00:00')
  const segs = toSegments(
    [
      { text: ' second ', startSecond: 4503.2, endSecond: 4510 },
      { text: 'first', startSecond: 1, endSecond: 0.5 }, // end before start: clamped
      { text: '  ', startSecond: 2, endSecond: 3 }, // empty: dropped
    ],
    ['B', 'A', 'C'],
    'first second',
    undefined,
  )
  t.same(segs, [
    { start: '00:01', startSec: 1, end: '00:01', endSec: 1, speaker: 'A', text: 'first' },
    { start: '75:03', startSec: 4503.2, end: '75:10', endSec: 4510, speaker: 'B', text: 'second' },
  ])
  t.same(toSegments([], null, 'all of it', 12.5), [{ start: '00:00', startSec: 0, end: '00:12', endSec: 12.5, text: 'all of it' }])
  t.same(speakersOf([{ body: { segments: [{ speaker: 'A' }, { speaker: 0 }] } }], 2), ['A', '0'])
  t.equal(speakersOf([{ body: { segments: [{ speaker: 'A' }] } }], 2), null, 'counts differ: no guessing')
  t.equal(speakersOf([{ body: { segments: [{}, {}] } }], 2), null)
  t.equal(speakersOf([{}], 0), null)
})

t.test('paused as shipped: every call is 503 and free', async (t) => {
  const cap = await capabilityHarness(t, manifest, { funds: 50 }) // the shipped config (config/defaults.json) pauses transcribe
  const paused = { status: 503, code: 'inference_unavailable', message: /paused since 2026-08-19.*not billed/ }
  for (const body of [{ audio: wav() }, { nonsense: true }, 'not an object']) await cap.expectRefused(t, body, paused)
  const c = await cap.customer()
  const bad = await cap.app.call(cap.path, { key: c.key, raw: '{not json' })
  t.equal(bad.status, 503, 'paused comes before the body is read')
  const dry = await cap.post(c, { audio: wav() }, { 'Service-Dry-Run': '1' })
  t.match(dry.body, { dryRun: true, liveStatus: 503, wouldCharge: 0, error: { code: 'inference_unavailable' } })
  t.same(await cap.app.ledger(c.accountId), { balance: 50, reserved: 0, ledgerSum: 50 })

  // An empty paused list (PAUSED_ENDPOINTS='{}') leaves the manifest's own `paused: true` in force.
  cap.app.services.config.paused = {}
  await cap.expectRefused(t, { audio: wav() }, { ...paused, message: /This endpoint is paused/, why: 'an empty paused list' })
})

t.test('resumed through config: end to end', async (t) => {
  const files = createServer((req, res) => {
    if (req.url === '/talk.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(makeWav(1.5))
    if (req.url === '/picture.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(TINY_PNG)
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise((r) => files.close(r)))
  const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`

  // Transcription by the fake server unless a subtest swaps in an ai SDK mock model.
  const cap = await capabilityHarness(t, manifest, {
    via: 'responses',
    // `false` resumes an endpoint its manifest ships paused (core/pipeline/paused.ts).
    config: { paused: { transcribe: false } as never, callbacksAllowPrivate: true },
    funds: 1000,
  })
  const fake = cap.fake
  fake.set({ transcript: 'Good morning everyone. The release is on track. Any questions?' })
  const useTranscription = (model: TranscriptionModel) => cap.use({ transcription: () => model })

  await t.test('inline audio through the fake OpenAI server', async (t) => {
    const { res: r } = await cap.call({ audio: wav(1.5), language: 'EN', prompt: 'release' })
    t.equal(r.status, 200, r.text)
    t.equal(r.body.text, 'Good morning everyone. The release is on track. Any questions?')
    t.same(
      r.body.segments.map((s: { start: string; text: string }) => [s.start, s.text]),
      [
        ['00:00', 'Good morning everyone.'],
        ['00:00', 'The release is on track.'],
        ['00:01', 'Any questions?'],
      ],
    )
    t.equal(r.body.language, 'en')
    t.equal(r.body.durationSec, 1.5)
    t.notOk('diarized' in r.body)
    t.same(r.body.usage, { credits: 10, balanceRemaining: 990, livemode: true })
    const sent = fake.requests.at(-1)!
    t.equal(sent.path, '/v1/audio/transcriptions')
    t.match(sent.body, {
      model: 'test-transcribe',
      response_format: 'verbose_json',
      language: 'en',
      prompt: 'release',
      file: { type: 'audio/wav' },
    })
  })

  await t.test('audioUrl is fetched and sniffed', async (t) => {
    const { res: r } = await cap.call({ audioUrl: `${base}/talk.wav`, diarize: true })
    t.equal(r.status, 200, r.text)
    t.equal(r.body.segments.length, 3)
    t.equal(r.body.diarized, false, 'the fake server gives no speakers')
    t.notOk(r.body.segments.some((s: object) => 'speaker' in s))
  })

  await t.test('speakers when the provider gives them; long audio past 59 minutes', async (t) => {
    useTranscription(
      new MockTranscriptionModelV3({
        doGenerate: async () => ({
          text: 'Hi. Hello. Bye.',
          segments: [
            { text: 'Hi.', startSecond: 0, endSecond: 1.2 },
            { text: 'Hello.', startSecond: 3600 + 15 * 60 + 3.4, endSecond: 4510 },
            { text: 'Bye.', startSecond: 4511, endSecond: 4512 },
          ],
          language: 'en',
          durationInSeconds: 4512,
          warnings: [],
          response: { timestamp: new Date(), modelId: 'mock', body: { segments: [{ speaker: 'A' }, { speaker: 'B' }, { speaker: 'A' }] } },
        }),
      }),
    )
    const { res: r } = await cap.call({ audio: wav(), diarize: true })
    t.equal(r.status, 200, r.text)
    t.same(r.body.segments, [
      { start: '00:00', startSec: 0, end: '00:01', endSec: 1.2, speaker: 'A', text: 'Hi.' },
      { start: '75:03', startSec: 4503.4, end: '75:10', endSec: 4510, speaker: 'B', text: 'Hello.' },
      { start: '75:11', startSec: 4511, end: '75:12', endSec: 4512, speaker: 'A', text: 'Bye.' },
    ])
    t.equal(r.body.diarized, true)
    const { res: plain } = await cap.call({ audio: wav() })
    t.notOk(
      plain.body.segments.some((s: object) => 'speaker' in s),
      'no speakers unless diarize is asked',
    )
  })

  await t.test('a provider without segments gives one segment', async (t) => {
    useTranscription(
      new MockTranscriptionModelV3({
        doGenerate: async () => ({
          text: 'Just text.',
          segments: [],
          language: undefined,
          durationInSeconds: undefined,
          warnings: [],
          response: { timestamp: new Date(), modelId: 'mock' },
        }),
      }),
    )
    const { res: r } = await cap.call({ audio: wav() })
    t.equal(r.status, 200, r.text)
    t.same(r.body.segments, [{ start: '00:00', startSec: 0, text: 'Just text.' }])
  })

  await t.test('failures are free: no speech 422, provider error 502', async (t) => {
    useTranscription(
      new MockTranscriptionModelV3({
        doGenerate: async () => ({
          text: '',
          segments: [],
          language: undefined,
          durationInSeconds: 1,
          warnings: [],
          response: { timestamp: new Date(), modelId: 'mock' },
        }),
      }),
    )
    await cap.expectRefused(t, { audio: wav() }, { status: 422, code: 'unprocessable', why: 'no speech' })
    useTranscription(
      new MockTranscriptionModelV3({
        doGenerate: async () => {
          throw new Error('provider exploded at 10.0.0.7')
        },
      }),
    )
    const broken = await cap.expectRefused(t, { audio: wav() }, { status: 502, code: 'inference_failed', why: 'a provider error' })
    t.notMatch(broken.res.text, /10\.0\.0\.7/, 'no provider internals in the message')
  })

  await t.test('bad input: 400 or 422, and free', async (t) => {
    const invalid: unknown[] = [
      {},
      { audio: wav(), audioUrl: `${base}/talk.wav` },
      { audio: { data: 'AAAA' } },
      { audioUrl: 'ftp://example.com/a.wav' },
      { audioUrl: 'not a url' },
      { audio: wav(), diarize: 'yes' },
      { audio: wav(), language: 'english' },
      { audio: wav(), extra: 1 },
      { audio: { data: '!!!not base64!!!', mimeType: 'audio/wav' } },
      { audio: wav(), async: true },
    ]
    for (const body of invalid) await cap.expectRefused(t, body)
    const unprocessable: Array<[unknown, RegExp]> = [
      [{ audio: { data: TINY_PNG.toString('base64'), mimeType: 'audio/wav' } }, /unsupported audio type image\/png/],
      [{ audio: { data: Buffer.from('just some text').toString('base64'), mimeType: 'audio/wav' } }, /unsupported audio type/],
      [{ audio: { data: '', mimeType: 'audio/wav' } }, /empty/],
      [{ audioUrl: `${base}/picture.wav` }, /unsupported audio type image\/png/],
      [{ audioUrl: `${base}/missing.wav` }, /HTTP 404/],
    ]
    for (const [body, message] of unprocessable) await cap.expectRefused(t, body, { status: 422, code: 'unprocessable', message })
    cap.app.services.config.callbacksAllowPrivate = false
    t.teardown(() => void (cap.app.services.config.callbacksAllowPrivate = true))
    await cap.expectRefused(
      t,
      { audioUrl: `${base}/talk.wav` },
      { status: 422, code: 'unprocessable', message: /non-public address/, why: 'a private address' },
    )
  })
})
