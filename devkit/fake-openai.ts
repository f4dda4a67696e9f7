// Fake OpenAI-compatible HTTP server on loopback for tests that exercise the REAL
// @ai-sdk/openai wire path (createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' })).
// Response shapes follow the zod schemas in node_modules/@ai-sdk/openai/dist/index.mjs.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { deflateSync } from 'node:zlib'
import { pngChunk } from './fixture-files.ts'
import { randomInstance, seededRng } from './schema-instance.ts'

export interface FakeTextRequest {
  api: 'responses' | 'chat'
  model: string
  system: string // concatenated system/developer instructions
  prompt: string // concatenated user text parts
  files: Array<{ mediaType: string; data: string /* base64 or url */ }>
  jsonSchema: unknown // requested structured-output JSON schema, or null
  tools: string[] // tool types/names sent, e.g. 'web_search'
  body: any // raw parsed request body
}
/**
 * Any JSON value: sent back as the model's output text (JSON.stringify'd); except `{ $text: string }`, the raw
 * output text, and `{ $status: number, $body?: unknown, $headers?: Record<string, string> }`, an HTTP error from
 * the provider.
 */
export type TextReply = unknown
export interface FakeOpenAIOptions {
  /** Returning undefined falls back to the default behaviour. */
  text?: (req: FakeTextRequest) => TextReply // or a Promise of one
  webSearch?: Array<{ url: string; title: string }>
  delayMs?: number
  /** Text returned by /audio/transcriptions (default 'Hello from the fake transcriber.'). */
  transcript?: string
  /**
   * Every text request fails the way real providers fail: `server_error` (500), `rate_limited` (429 with
   * Retry-After: `retryAfterSeconds`, default 30), `context_length` (400 context_length_exceeded, OpenAI's
   * body), `hang` (headers never sent until the client gives up). For a refused connection, `closedBaseURL()`.
   */
  failure?: 'server_error' | 'rate_limited' | 'context_length' | 'hang' | undefined
  retryAfterSeconds?: number
  /**
   * The next this-many text requests have their connection reset after the request was read, no response (what
   * a client sees when a provider's load balancer drops a kept-alive socket). Counts down.
   */
  resets?: number
  /**
   * The models this server serves, as a vLLM or Ollama server has its own: GET /models lists them, and a text
   * request for any other model (Ollama's `x:latest` is also `x`) is 404 model_not_found (OpenAI's body). Unset:
   * GET /models is 404 (a server that does not list) and every model is served.
   */
  models?: string[]
}
export interface FakeOpenAI {
  baseURL: string
  requests: Array<{ path: string; body: any }>
  /** The usage each answered text request reported, in order (what the service must record). */
  usage: Array<{ model: string; inputTokens: number; outputTokens: number }>
  set(opts: Partial<FakeOpenAIOptions>): void
  close(): Promise<void>
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)
const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4))
const now = () => Math.floor(Date.now() / 1000)
let seq = 0
const id = (prefix: string) => `${prefix}_fake${(++seq).toString(36)}`

// ---------- binary fixtures ----------
/** A valid 1x1 RGBA PNG. */
export const TINY_PNG: Buffer = (() => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(1, 0) // width
  ihdr.writeUInt32BE(1, 4) // height
  ihdr.set([8, 6, 0, 0, 0], 8) // 8-bit, RGBA, deflate, no filter, no interlace
  const raw = Buffer.from([0, 0x33, 0x99, 0xff, 0xff]) // filter byte + one pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
})()

function pcmTone(seconds: number, rate: number): Buffer {
  const n = Math.round(seconds * rate)
  const pcm = Buffer.alloc(n * 2)
  for (let i = 0; i < n; i++) pcm.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2)
  return pcm
}
/** 16-bit mono PCM WAV of a 440 Hz tone. */
export function makeWav(seconds = 0.5, rate = 24000): Buffer {
  const pcm = pcmTone(seconds, rate)
  const h = Buffer.alloc(44)
  h.write('RIFF', 0)
  h.writeUInt32LE(36 + pcm.length, 4)
  h.write('WAVE', 8)
  h.write('fmt ', 12)
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(1, 22)
  h.writeUInt32LE(rate, 24)
  h.writeUInt32LE(rate * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36)
  h.writeUInt32LE(pcm.length, 40)
  return Buffer.concat([h, pcm])
}
/** Silent MPEG-1 Layer III frames (128 kbps, 44.1 kHz), ~26 ms each. */
function makeMp3(seconds = 0.5): Buffer {
  const frame = Buffer.alloc(417)
  frame.set([0xff, 0xfb, 0x90, 0x64])
  return Buffer.concat(Array.from({ length: Math.ceil(seconds / 0.026) }, () => frame))
}
function wavDuration(buf: Buffer): number | null {
  if (buf.length < 44 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return null
  let byteRate = 0
  for (let off = 12; off + 8 <= buf.length;) {
    const tag = buf.toString('ascii', off, off + 4)
    const size = buf.readUInt32LE(off + 4)
    if (tag === 'fmt ') byteRate = buf.readUInt32LE(off + 16)
    if (tag === 'data' && byteRate) return Math.min(size, buf.length - off - 8) / byteRate
    off += 8 + size + (size & 1)
  }
  return null
}

// ---------- embeddings: hashed bag of lower-cased words, L2-normalised ----------
export function fakeEmbedding(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 0x811c9dc5
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193)
    v[(h >>> 0) % dims]! += 1
  }
  const norm = Math.hypot(...v)
  if (norm === 0) {
    v[0] = 1
    return v
  }
  return v.map((x) => x / norm)
}

// ---------- request parsing ----------
function dataUrl(url: string): { mediaType: string; data: string } {
  const m = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url)
  return m ? { mediaType: m[1] ?? 'application/octet-stream', data: m[2]! } : { mediaType: guessType(url), data: url }
}
function guessType(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase()
  const map: Record<string, string> = {
    pdf: 'application/pdf',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    txt: 'text/plain',
  }
  return (ext && map[ext]) || 'application/octet-stream'
}
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((p) => typeof p?.text === 'string')
          .map((p) => p.text)
          .join('\n')
      : ''

function parseTextRequest(api: 'responses' | 'chat', body: any): FakeTextRequest {
  const system: string[] = []
  const prompt: string[] = []
  const files: FakeTextRequest['files'] = []
  const messages: any[] =
    api === 'responses'
      ? typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : (body.input ?? [])
      : (body.messages ?? [])
  if (api === 'responses' && typeof body.instructions === 'string') system.push(body.instructions)
  for (const m of messages) {
    if (m?.role === 'system' || m?.role === 'developer') {
      system.push(textOf(m.content))
      continue
    }
    if (m?.role !== 'user') continue
    if (typeof m.content === 'string') {
      prompt.push(m.content)
      continue
    }
    for (const p of m.content ?? []) {
      switch (p?.type) {
        case 'input_text':
        case 'text':
          prompt.push(p.text)
          break
        case 'input_image':
          files.push(p.file_id ? { mediaType: 'image/*', data: p.file_id } : dataUrl(p.image_url))
          break
        case 'image_url':
          files.push(dataUrl(p.image_url?.url ?? ''))
          break
        case 'input_file':
          files.push(
            p.file_data
              ? dataUrl(p.file_data)
              : p.file_url
                ? { mediaType: guessType(p.file_url), data: p.file_url }
                : { mediaType: 'application/octet-stream', data: p.file_id },
          )
          break
        case 'file':
          files.push(p.file?.file_data ? dataUrl(p.file.file_data) : { mediaType: 'application/octet-stream', data: p.file?.file_id })
          break
        case 'input_audio':
          files.push({
            mediaType: p.input_audio?.format === 'mp3' ? 'audio/mpeg' : `audio/${p.input_audio?.format}`,
            data: p.input_audio?.data,
          })
          break
      }
    }
  }
  const format = api === 'responses' ? body.text?.format : body.response_format
  const jsonSchema = format?.type === 'json_schema' ? ((api === 'responses' ? format.schema : format.json_schema?.schema) ?? null) : null
  const tools: string[] = (body.tools ?? []).map((t: any) =>
    t?.type === 'function' ? (t.name ?? t.function?.name) : t?.type === 'custom' ? t.name : t?.type,
  )
  if (body.web_search_options) tools.push('web_search')
  return { api, model: String(body.model ?? ''), system: system.join('\n'), prompt: prompt.join('\n'), files, jsonSchema, tools, body }
}

// ---------- default structured output ----------
/**
 * A random instance of the requested schema (what a constrained model may answer), seeded by the request: the
 * same request always gets the same answer, and a corrective retry, whose prompt differs, another one.
 */
function defaultAnswer(req: FakeTextRequest): unknown {
  return randomInstance(req.jsonSchema, seededRng(JSON.stringify([req.system, req.prompt, req.jsonSchema])))
}

// ---------- server ----------
export async function startFakeOpenAI(initial: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const opts: FakeOpenAIOptions = { ...initial }
  const requests: FakeOpenAI['requests'] = []
  const served: FakeOpenAI['usage'] = []

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body))
  }
  const error = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error') =>
    json(res, status, { error: { message, type, param: null, code: null } })
  const binary = (res: ServerResponse, type: string, buf: Buffer) =>
    res.writeHead(200, { 'content-type': type, 'content-length': buf.length }).end(buf)
  // Responses API streams named events; Chat Completions streams bare chunks ending with [DONE].
  const sse = (res: ServerResponse, events: Array<Record<string, any>>, style: 'responses' | 'chat') => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const e of events) res.write(`${style === 'responses' ? `event: ${e.type}\n` : ''}data: ${JSON.stringify(e)}\n\n`)
    res.end(style === 'chat' ? 'data: [DONE]\n\n' : undefined)
  }

  async function textReply(
    req: FakeTextRequest,
  ): Promise<{ text: string } | { status: number; body: unknown; headers?: Record<string, string> }> {
    let reply: unknown = opts.text ? await opts.text(req) : undefined
    if (reply === undefined) reply = req.jsonSchema ? defaultAnswer(req) : { $text: 'ok' }
    if (isObj(reply) && typeof reply.$status === 'number') {
      return {
        status: reply.$status,
        body: reply.$body ?? { error: { message: `fake provider error ${reply.$status}`, type: 'server_error', param: null, code: null } },
        headers: reply.$headers,
      }
    }
    if (isObj(reply) && typeof reply.$text === 'string') return { text: reply.$text }
    return { text: JSON.stringify(reply) }
  }

  async function responses(res: ServerResponse, body: any) {
    const req = parseTextRequest('responses', body)
    const r = await textReply(req)
    if ('status' in r) return json(res, r.status, r.body, r.headers)
    const sources = opts.webSearch && req.tools.some((t) => t.startsWith('web_search')) ? opts.webSearch : null
    const output: any[] = []
    if (sources) {
      output.push({
        type: 'web_search_call',
        id: id('ws'),
        status: 'completed',
        action: { type: 'search', query: req.prompt.slice(0, 200), sources: sources.map((s) => ({ type: 'url', url: s.url })) },
      })
    }
    const annotations = (sources ?? []).map((s) => ({
      type: 'url_citation',
      start_index: 0,
      end_index: r.text.length,
      url: s.url,
      title: s.title,
    }))
    const message = {
      type: 'message',
      id: id('msg'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: r.text, annotations, logprobs: [] }],
    }
    output.push(message)
    const inTok = tokens(req.system + req.prompt) + req.files.length * 100
    const outTok = tokens(r.text)
    served.push({ model: req.model, inputTokens: inTok, outputTokens: outTok })
    const response = {
      id: id('resp'),
      object: 'response',
      created_at: now(),
      status: 'completed',
      model: req.model,
      output,
      incomplete_details: null,
      error: null,
      usage: {
        input_tokens: inTok,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outTok,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inTok + outTok,
      },
    }
    if (!body.stream) return json(res, 200, response)
    const events: any[] = [{ type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } }]
    output.forEach((item, output_index) => {
      if (item.type === 'message') {
        events.push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } })
        for (const delta of chunks(r.text))
          events.push({ type: 'response.output_text.delta', item_id: item.id, output_index, content_index: 0, delta, logprobs: [] })
        annotations.forEach((annotation, annotation_index) =>
          events.push({
            type: 'response.output_text.annotation.added',
            item_id: item.id,
            output_index,
            content_index: 0,
            annotation_index,
            annotation,
          }),
        )
      } else {
        events.push({ type: 'response.output_item.added', output_index, item: { type: item.type, id: item.id, status: 'in_progress' } })
      }
      events.push({ type: 'response.output_item.done', output_index, item })
    })
    events.push({ type: 'response.completed', response })
    events.forEach((e, i) => (e.sequence_number = i))
    sse(res, events, 'responses')
  }

  async function chat(res: ServerResponse, body: any) {
    const req = parseTextRequest('chat', body)
    const r = await textReply(req)
    if ('status' in r) return json(res, r.status, r.body, r.headers)
    const sources = opts.webSearch && body.web_search_options ? opts.webSearch : null
    const annotations = sources?.map((s) => ({
      type: 'url_citation',
      url_citation: { start_index: 0, end_index: r.text.length, url: s.url, title: s.title },
    }))
    const prompt_tokens = tokens(req.system + req.prompt) + req.files.length * 100
    const completion_tokens = tokens(r.text)
    served.push({ model: req.model, inputTokens: prompt_tokens, outputTokens: completion_tokens })
    const usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens }
    const base = { id: id('chatcmpl'), created: now(), model: req.model }
    if (!body.stream) {
      return json(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: r.text, refusal: null, ...(annotations && { annotations }) },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage,
      })
    }
    const chunk = (choices: any[], extra = {}) => ({ ...base, object: 'chat.completion.chunk', choices, ...extra })
    sse(
      res,
      [
        chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
        ...chunks(r.text).map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
        ...(annotations ? [chunk([{ index: 0, delta: { annotations }, finish_reason: null }])] : []),
        chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
        ...(body.stream_options?.include_usage ? [chunk([], { usage })] : []),
      ],
      'chat',
    )
  }

  function images(res: ServerResponse, body: any) {
    const n = Math.max(1, Number(body.n ?? 1))
    json(res, 200, {
      created: now(),
      size: typeof body.size === 'string' ? body.size : undefined,
      data: Array.from({ length: n }, () => ({ b64_json: TINY_PNG.toString('base64'), revised_prompt: body.prompt })),
      usage: { input_tokens: tokens(String(body.prompt ?? '')), output_tokens: 0, total_tokens: tokens(String(body.prompt ?? '')) },
    })
  }

  function speech(res: ServerResponse, body: any) {
    const format = String(body.response_format ?? 'mp3')
    if (format === 'wav') return binary(res, 'audio/wav', makeWav(0.5))
    if (format === 'pcm') return binary(res, 'audio/pcm', pcmTone(0.5, 24000))
    binary(res, 'audio/mpeg', makeMp3(0.5))
  }

  function transcription(res: ServerResponse, fields: Record<string, any>, audio: Buffer | null) {
    const text = opts.transcript ?? 'Hello from the fake transcriber.'
    const duration = Math.round(((audio && wavDuration(audio)) ?? 1) * 1000) / 1000
    if (fields.response_format === 'json') return json(res, 200, { text, usage: { type: 'duration', seconds: Math.ceil(duration) } })
    if (fields.response_format === 'text') return res.writeHead(200, { 'content-type': 'text/plain' }).end(text)
    const sentences = text
      .match(/[^.!?]+[.!?]*\s*/g)
      ?.map((s) => s.trim())
      .filter(Boolean) ?? [text]
    const step = duration / sentences.length
    json(res, 200, {
      task: 'transcribe',
      language: 'english',
      duration,
      text,
      segments: sentences.map((s, i) => ({
        id: i,
        seek: 0,
        start: +(i * step).toFixed(3),
        end: +((i + 1) * step).toFixed(3),
        text: s,
        tokens: [],
        temperature: 0,
        avg_logprob: -0.1,
        compression_ratio: 1,
        no_speech_prob: 0,
      })),
    })
  }

  function embeddings(res: ServerResponse, body: any) {
    const inputs: string[] = (Array.isArray(body.input) ? body.input : [body.input]).map((x: unknown) =>
      typeof x === 'string' ? x : JSON.stringify(x),
    )
    const dims = Number(body.dimensions) > 0 ? Number(body.dimensions) : 64
    const prompt_tokens = inputs.reduce((n, s) => n + (s.match(/\S+/g)?.length ?? 0), 0)
    json(res, 200, {
      object: 'list',
      model: body.model,
      data: inputs.map((s, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(s, dims) })),
      usage: { prompt_tokens, total_tokens: prompt_tokens },
    })
  }

  function fail(res: ServerResponse, failure: NonNullable<FakeOpenAIOptions['failure']>) {
    switch (failure) {
      case 'server_error':
        return error(res, 500, 'The server had an error while processing your request.', 'server_error')
      case 'rate_limited':
        return json(
          res,
          429,
          { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
          { 'retry-after': String(opts.retryAfterSeconds ?? 30) },
        )
      case 'context_length':
        return json(res, 400, {
          error: {
            message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        })
      case 'hang':
        return // the response stays open until the client closes it (closeAllConnections ends it at close())
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    // The service's model check (at boot): answered, never counted among the model requests tests read.
    if (req.method === 'GET' && path.replace(/^\/v1/, '') === '/models') {
      if (!opts.models) return error(res, 404, `Unknown request URL: GET ${path}`)
      return json(res, 200, {
        object: 'list',
        data: opts.models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })),
      })
    }
    const raw = await readBody(req)
    const type = String(req.headers['content-type'] ?? '')
    let body: any = null
    let upload: Buffer | null = null
    if (type.startsWith('multipart/form-data')) {
      const form = await new Request('http://localhost', {
        method: 'POST',
        headers: { 'content-type': type },
        body: new Uint8Array(raw),
      }).formData()
      body = {}
      for (const [key, value] of form) {
        if (typeof value === 'string') {
          body[key] = value
          continue
        }
        const buf = Buffer.from(await value.arrayBuffer())
        upload ??= buf
        body[key] = { name: value.name, type: value.type, size: buf.length }
      }
    } else if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'))
      } catch {
        requests.push({ path, body: raw.toString('utf8') })
        return error(res, 400, 'Invalid JSON body')
      }
    }
    requests.push({ path, body })

    if (opts.delayMs && opts.delayMs > 0) {
      let aborted = false
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, opts.delayMs)
        const onClose = () => {
          aborted = true
          done()
        }
        res.once('close', onClose)
        function done() {
          clearTimeout(timer)
          res.off('close', onClose)
          resolve()
        }
      })
      if (aborted) return // client gave up: stop early, write nothing
    }

    const route = req.method === 'POST' ? path.replace(/^\/v1/, '') : ''
    const text = route === '/responses' || route === '/chat/completions'
    // Ollama serves `llama3:latest` as `llama3` too.
    if (text && opts.models && !opts.models.some((m) => m === String(body?.model) || m === `${String(body?.model)}:latest`))
      return json(res, 404, {
        error: {
          message: `The model \`${String(body?.model)}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      })
    if (text && opts.resets) {
      opts.resets--
      return void req.socket.resetAndDestroy()
    }
    if (opts.failure && text) return fail(res, opts.failure)
    switch (route) {
      case '/responses':
        return responses(res, body ?? {})
      case '/chat/completions':
        return chat(res, body ?? {})
      case '/images/generations':
      case '/images/edits':
        return images(res, body ?? {})
      case '/audio/speech':
        return speech(res, body ?? {})
      case '/audio/transcriptions':
        return transcription(res, body ?? {}, upload)
      case '/embeddings':
        return embeddings(res, body ?? {})
      default:
        return error(res, 404, `Unknown request URL: ${req.method} ${path}`)
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) error(res, 500, `fake-openai: ${err?.message ?? err}`, 'server_error')
      else res.destroy()
    })
  })
  // A provider accepts a burst of connections (the bench opens thousands at once); Node's default backlog is 511.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    usage: served,
    set: (patch) => {
      Object.assign(opts, patch)
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}

/** The base URL of a loopback port nothing listens on: every connection is refused. */
export async function closedBaseURL(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1' }, resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}/v1`
}

function chunks(text: string, size = 16): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out.length ? out : ['']
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req
      .on('data', (c: Buffer) => parts.push(c))
      .on('end', () => resolve(Buffer.concat(parts)))
      .on('error', reject)
  })
}
