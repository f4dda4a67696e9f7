// Proves the fake OpenAI server speaks the wire format the REAL @ai-sdk/openai@4 + ai@7 expect.
import t from 'tap'
import { createOpenAI } from '@ai-sdk/openai'
import {
  APICallError,
  Output,
  cosineSimilarity,
  embed,
  embedMany,
  generateSpeech,
  transcribe,
  generateImage,
  generateText,
  jsonSchema,
  streamText,
  type Tool,
} from 'ai'
import { ajv } from '../core/validation.ts'
import { closedBaseURL, makeWav, startFakeOpenAI, type FakeTextRequest } from '../devkit/fake-openai.ts'

const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' })
const last = () => fake.requests.at(-1)!

const schema = jsonSchema<{ title: string; score: number }>({
  type: 'object',
  properties: { title: { type: 'string' }, score: { type: 'number' } },
  required: ['title', 'score'],
  additionalProperties: false,
})

t.beforeEach(() => fake.set({ text: undefined, webSearch: undefined, delayMs: undefined, failure: undefined }))

for (const api of ['responses', 'chat'] as const) {
  t.test(`structured output via ${api} API returns the handler's object`, async (t) => {
    let seen: FakeTextRequest | undefined
    fake.set({ text: (req) => ((seen = req), { title: `from ${req.api}`, score: 7 }) })
    const model = api === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini')
    const result = await generateText({
      model,
      system: 'Be terse.',
      prompt: 'Rate this.',
      output: Output.object({ schema }),
      maxRetries: 0,
    })
    t.same(result.output, { title: `from ${api}`, score: 7 })
    t.equal(seen?.api, api)
    t.equal(seen?.model, 'gpt-4o-mini')
    t.equal(seen?.system, 'Be terse.')
    t.equal(seen?.prompt, 'Rate this.')
    t.match(seen?.jsonSchema, { type: 'object', required: ['title', 'score'] })
    t.equal(last().path, api === 'chat' ? '/v1/chat/completions' : '/v1/responses')
    t.ok((result.usage.inputTokens ?? 0) > 0 && (result.usage.outputTokens ?? 0) > 0, 'usage reported')
  })

  t.test(`default reply over ${api}: 'ok' text, or a seeded random object of the schema`, async (t) => {
    const model = api === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini')
    t.equal((await generateText({ model, prompt: 'hi', maxRetries: 0 })).text, 'ok')
    const ask = async (prompt: string) => (await generateText({ model, prompt, output: Output.object({ schema }), maxRetries: 0 })).output
    const first = await ask('hi')
    t.match(first, { title: String, score: Number })
    t.same(await ask('hi'), first, 'the same request gets the same answer')
    t.notSame(await ask('hi again'), first, 'another request another one')
  })

  t.test(`streaming over ${api}`, async (t) => {
    fake.set({ text: () => ({ $text: 'streamed text that is longer than one chunk' }) })
    const model = api === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini')
    const result = streamText({ model, prompt: 'hi', maxRetries: 0 })
    t.equal(await result.text, 'streamed text that is longer than one chunk')
    t.ok(((await result.usage).outputTokens ?? 0) > 0)
    t.equal(last().body.stream, true)
  })
}

t.test('a $status reply surfaces as an APICallError', async (t) => {
  fake.set({ text: () => ({ $status: 500 }) })
  const err = await generateText({ model: openai('gpt-4o-mini'), prompt: 'hi', maxRetries: 0 }).catch((e: unknown) => e)
  t.ok(APICallError.isInstance(err), 'APICallError')
  t.equal((err as APICallError).statusCode, 500)
  t.match((err as APICallError).message, /fake provider error 500/)
})

t.test('failure modes fail the way the SDK sees real providers fail, over both wires', async (t) => {
  for (const wire of ['responses', 'chat'] as const) {
    const model = wire === 'chat' ? openai.chat('gpt-4o-mini') : openai.responses('gpt-4o-mini')
    const ask = (abortSignal?: AbortSignal): Promise<APICallError> =>
      generateText({ model, prompt: 'hi', maxRetries: 0, ...(abortSignal ? { abortSignal } : {}) }).then(
        () => t.fail('answered') as never,
        (e: unknown) => e as APICallError,
      )
    fake.set({ failure: 'server_error' })
    t.equal((await ask()).statusCode, 500, `${wire}: 500`)
    fake.set({ failure: 'rate_limited', retryAfterSeconds: 12 })
    const limited = await ask()
    t.equal(limited.statusCode, 429)
    t.equal(limited.responseHeaders?.['retry-after'], '12', `${wire}: 429 with Retry-After`)
    fake.set({ failure: 'context_length' })
    const long = await ask()
    t.equal(long.statusCode, 400)
    t.match(long.responseBody, /context_length_exceeded/, `${wire}: OpenAI's context-length error`)
    fake.set({ failure: 'hang' })
    const started = Date.now()
    const hung = await ask(AbortSignal.timeout(300))
    t.ok(
      Date.now() - started < 2000 && (hung as Error).name !== 'APICallError',
      `${wire}: a hang answers nothing until the client gives up`,
    )
    fake.set({ failure: undefined })
  }
  const before = fake.usage.length
  await generateText({ model: openai('gpt-4o-mini'), prompt: 'hi', maxRetries: 0 })
  t.equal(fake.usage.length, before + 1, 'an answered request records the usage it reported')
  const refused = await generateText({
    model: createOpenAI({ baseURL: await closedBaseURL(), apiKey: 'test' })('gpt-4o-mini'),
    prompt: 'hi',
    maxRetries: 0,
  }).then(
    () => t.fail('answered') as never,
    (e: unknown) => e as APICallError,
  )
  t.equal(refused.statusCode, undefined, 'a closed port: a connection error, no status')
})

t.test('delayMs + client abort', async (t) => {
  fake.set({ delayMs: 5000 })
  const started = Date.now()
  const err = await generateText({
    model: openai('gpt-4o-mini'),
    prompt: 'slow',
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(150),
  }).catch((e: unknown) => e)
  t.ok(err instanceof Error, 'aborted')
  t.ok(Date.now() - started < 2000, 'did not wait for the full delay')
})

t.test('web search returns sources in result.sources (responses API)', async (t) => {
  // Cast needed only for the type checker: @ai-sdk/openai and ai resolve different @ai-sdk/provider-utils
  // copies (4.0.66 vs 4.0.65), whose Schema brand symbols differ. At runtime the tool works as is.
  const tools = { web_search: openai.tools.webSearch({}) as unknown as Tool }
  const webSearch = [
    { url: 'https://example.com/a', title: 'A' },
    { url: 'https://example.org/b', title: 'B' },
  ]
  fake.set({ webSearch, text: () => ({ $text: 'Answer with citations.' }) })
  const result = await generateText({
    model: openai.responses('gpt-4o-mini'),
    prompt: 'news?',
    tools,
    maxRetries: 0,
  })
  t.equal(result.text, 'Answer with citations.')
  // @ai-sdk/openai 4 takes the sources from the web_search_call action (URLs only); the titles of the
  // url_citation annotations stay on the answer's citations (read by core/models/generate.ts).
  t.same(
    result.sources.map((s) => s.sourceType === 'url' && { url: s.url, title: s.title }),
    webSearch.map((s) => ({ url: s.url, title: undefined })),
  )
  const citations = result.content.flatMap((p) => (p.type === 'text' ? (p.citations ?? []) : []))
  t.same(
    citations.map((c) => c.source.sourceType === 'url' && { url: c.source.url, title: c.source.title }),
    webSearch,
  )
  t.ok(
    result.toolResults.some((r) => r.toolName === 'web_search'),
    'provider-executed web_search tool result',
  )
  t.same(last().body.tools, [{ type: 'web_search' }])

  const streamed = streamText({
    model: openai.responses('gpt-4o-mini'),
    prompt: 'news?',
    tools,
    maxRetries: 0,
  })
  t.same(
    (await streamed.sources).map((s) => s.sourceType === 'url' && s.url),
    webSearch.map((s) => s.url),
    'streamed sources',
  )
})

t.test('PDF file part is recorded (responses API)', async (t) => {
  let seen: FakeTextRequest | undefined
  fake.set({ text: (req) => ((seen = req), { $text: 'read it' }) })
  const pdf = Buffer.from('%PDF-1.4\n%fake\n')
  await generateText({
    model: openai.responses('gpt-4o-mini'),
    maxRetries: 0,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summarise' },
          { type: 'file', mediaType: 'application/pdf', data: pdf, filename: 'doc.pdf' },
        ],
      },
    ],
  })
  t.same(seen?.files, [{ mediaType: 'application/pdf', data: pdf.toString('base64') }])
  t.equal(seen?.prompt, 'Summarise')
  t.match(last().body.input[0].content[1], { type: 'input_file', filename: 'doc.pdf' })
})

t.test('image generation round-trips a real PNG and records size', async (t) => {
  const { image, images } = await generateImage({
    model: openai.image('gpt-image-1'),
    prompt: 'a dot',
    size: '1024x1024',
    n: 2,
    maxRetries: 0,
  })
  t.equal(images.length, 2)
  t.equal(image.mediaType, 'image/png')
  t.same([...image.uint8Array.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47])
  t.match(last(), { path: '/v1/images/generations', body: { size: '1024x1024', prompt: 'a dot' } })
})

t.test('speech returns WAV / MP3 bytes and records voice + speed', async (t) => {
  const { audio } = await generateSpeech({
    model: openai.speech('tts-1'),
    text: 'hello',
    voice: 'nova',
    speed: 1.5,
    outputFormat: 'wav',
    maxRetries: 0,
  })
  t.equal(audio.mediaType, 'audio/wav')
  t.equal(Buffer.from(audio.uint8Array).toString('ascii', 8, 12), 'WAVE')
  t.match(last(), { path: '/v1/audio/speech', body: { voice: 'nova', speed: 1.5, response_format: 'wav', input: 'hello' } })
  const mp3 = await generateSpeech({ model: openai.speech('tts-1'), text: 'hi', maxRetries: 0 })
  t.equal(mp3.audio.mediaType, 'audio/mpeg')
})

t.test('transcription parses multipart and returns segments', async (t) => {
  fake.set({ transcript: 'First part. Second part.' })
  const result = await transcribe({ model: openai.transcription('whisper-1'), audio: makeWav(2), maxRetries: 0 })
  fake.set({ transcript: undefined })
  t.equal(result.text, 'First part. Second part.')
  t.equal(result.language, 'en')
  t.equal(result.durationInSeconds, 2)
  t.same(result.segments, [
    { text: 'First part.', startSecond: 0, endSecond: 1 },
    { text: 'Second part.', startSecond: 1, endSecond: 2 },
  ])
  t.match(last(), { path: '/v1/audio/transcriptions', body: { model: 'whisper-1', file: { size: makeWav(2).length } } })
})

t.test('embeddings are deterministic and word-overlap sensitive', async (t) => {
  const model = openai.embedding('text-embedding-3-small')
  const a = await embed({ model, value: 'The quick brown fox', maxRetries: 0 })
  t.equal(a.embedding.length, 64)
  t.same((await embed({ model, value: 'the QUICK brown fox', maxRetries: 0 })).embedding, a.embedding)
  const { embeddings } = await embedMany({ model, values: ['quick brown dog', 'interest rates rise'], maxRetries: 0 })
  t.ok(cosineSimilarity(a.embedding, embeddings[0]!) > cosineSimilarity(a.embedding, embeddings[1]!))
  t.ok(a.usage.tokens > 0)
})

t.test('unknown paths get a 404 in OpenAI error shape', async (t) => {
  const res = await fetch(`${fake.baseURL}/nope`, { method: 'POST', body: '{}' })
  t.equal(res.status, 404)
  t.match(await res.json(), { error: { message: /Unknown request URL/, type: 'invalid_request_error' } })
})

t.test('the default structured reply satisfies the schema it was sent, patterns and formats included', async (t) => {
  const strict = {
    type: 'object',
    required: ['e', 'n', 's', 'a', 'r', 'o', 'p'],
    additionalProperties: false,
    properties: {
      e: { enum: ['b', 'c'] },
      n: { type: 'integer', minimum: 3 },
      s: { type: 'string', minLength: 3 },
      a: { type: 'array', minItems: 2, items: { type: 'boolean' } },
      r: { $ref: '#/$defs/d' },
      o: { anyOf: [{ type: 'null' }, { type: 'string', format: 'date' }] },
      p: { type: 'string', pattern: '^INV-[0-9]{4}$' },
    },
    $defs: { d: { type: 'number', exclusiveMinimum: 1 } },
  }
  const validate = ajv.compile(strict)
  for (const prompt of ['one', 'two', 'three', 'four', 'five']) {
    const { output } = await generateText({
      model: openai.responses('gpt-4o-mini'),
      prompt,
      output: Output.object({ schema: jsonSchema(strict as never) }),
      maxRetries: 0,
    })
    t.ok(validate(output), `${JSON.stringify(output)}: ${ajv.errorsText(validate.errors)}`)
  }
})
