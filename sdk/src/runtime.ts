// The hand-written part of the SDK: transport, retries, errors, response metadata, list pagination, job
// polling, webhook verification. index.ts (generated from the published OpenAPI document by
// scripts/generate-sdk.ts) adds one typed method per operation on top of this. Zero dependencies: global fetch
// and Web Crypto (Node ≥ 20, browsers, Deno, Bun).
import type { ErrorCode, JobAccepted, TestOutcome } from './index.js'

export interface ClientOptions {
  /** The ksk_live_… (or ksk_test_…) key, sent as `Authorization: Bearer`. */
  apiKey: string
  /** Default http://localhost:3000. */
  baseUrl?: string
  /** Retries of 429, 503, 502 with Retry-After, 409 idempotency_key_in_use and network errors. Default 2; 0 turns retries off. */
  maxRetries?: number
  /**
   * The longest wait before a retry. A Retry-After up to this long is waited exactly; a longer one is not
   * waited at all: the call throws at once, with the ApiError's `retryAfter` saying when to come back.
   * Default 30 000 ms.
   */
  maxRetryDelayMs?: number
  /** Another fetch (tests, proxies). Default: the global one. */
  fetch?: typeof fetch
}

/** Options of every call. */
export interface RequestOptions {
  /** Extra request headers of this call (e.g. tracing). The SDK's own options below win over them. */
  headers?: Record<string, string>
  signal?: AbortSignal
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number
  /** Called with the metadata of the answer the call returns or throws (safe with concurrent calls, unlike `lastResponse`). */
  onResponse?: (response: ResponseInfo) => void
}

/** Options of a capability call. */
export interface CallOptions extends RequestOptions {
  /** Quote the call (`Service-Dry-Run: 1`): nothing runs, nothing is charged; returns the DryRun report. */
  dryRun?: boolean
  /** Sent as `Idempotency-Key`. When retries are on and none is given, the SDK makes one per call. */
  idempotencyKey?: string
  /** Test keys only (`Service-Test-Outcome`): the call answers this error as a live call would. */
  testOutcome?: TestOutcome
}

/** What the service said about one answer besides its body. */
export interface ResponseInfo {
  status: number
  /** X-Request-Id: quote it when asking about a call. */
  requestId: string | null
  /** Idempotent-Replayed: the recorded answer of an earlier call with the same Idempotency-Key, not charged again. */
  replayed: boolean
  /** The RateLimit-* headers of a capability call; null where the route sends none. */
  rateLimit: { limit: number; remaining: number; resetSeconds: number } | null
  /** Retry-After in seconds, when sent. */
  retryAfter: number | null
  /** Every header, for anything else. */
  headers: Headers
}

/** The service's stable codes, plus the SDK's own: `network_error`, `timeout`, and `http_<status>` for a non-JSON answer. */
export type ApiErrorCode = ErrorCode | 'network_error' | 'timeout' | `http_${number}`

export interface ErrorDetail {
  path: string
  message: string
}

/** Every non-2xx answer, with the service's stable code (C2). Network failures are `code: 'network_error'`. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly requestId: string | null,
    readonly details: ErrorDetail[] = [],
    /** Seconds, from the Retry-After header, when the service sent one. */
    readonly retryAfter: number | null = null,
  ) {
    super(message)
  }
}

declare const resultType: unique symbol
/**
 * The 202 answer of an async call, typed with the result its job will have: `waitForJob` on it returns a job
 * whose `result` is R, without a cast. (`R` lives in the type only; the object is the JobAccepted body.)
 */
export type AcceptedJob<R> = JobAccepted & { readonly [resultType]?: R }

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    // An abort's reason is an Error: the caller's, or the AbortError DOMException abort() makes.
    if (signal?.aborted) return reject(signal.reason as Error)
    const timer = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    function abort() {
      clearTimeout(timer)
      reject(signal!.reason as Error)
    }
    signal?.addEventListener('abort', abort, { once: true })
  })

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000)
}

/**
 * Whether a refusal may succeed if sent again unchanged: rate limits, unavailability, a key still running, and
 * a 502 whose Retry-After says when the provider may answer (nothing was charged for it).
 */
export function isRetryable(status: number, code: string, retryAfter: number | null = null): boolean {
  return (
    status === 429 || status === 503 || (status === 409 && code === 'idempotency_key_in_use') || (status === 502 && retryAfter !== null)
  )
}

/** Exponential backoff with full jitter over [base/2, base], at most maxMs: the wait when no Retry-After was sent. */
export function backoffMs(attempt: number, maxMs: number): number {
  const base = Math.min(maxMs, 500 * 2 ** attempt)
  return base / 2 + Math.random() * (base / 2)
}

/** `?a=1&b=x` from the defined values of a flat object ('' when there are none). */
export function queryString(query: object | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== null)
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : ''
}

function responseInfo(res: Response): ResponseInfo {
  const limit = res.headers.get('ratelimit-limit')
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    replayed: res.headers.get('idempotent-replayed') === 'true',
    rateLimit:
      limit === null
        ? null
        : {
            limit: Number(limit),
            remaining: Number(res.headers.get('ratelimit-remaining')),
            resetSeconds: Number(res.headers.get('ratelimit-reset')),
          },
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
    headers: res.headers,
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export class BaseClient {
  readonly baseUrl: string
  protected readonly apiKey: string
  protected readonly maxRetries: number
  protected readonly maxRetryDelayMs: number
  protected readonly fetcher: typeof fetch
  #last: ResponseInfo | null = null

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('apiKey is required')
    this.apiKey = options.apiKey
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '')
    this.maxRetries = options.maxRetries ?? 2
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000
    this.fetcher = options.fetch ?? ((...args) => fetch(...args))
  }

  /**
   * The request id, rate-limit headers and replay flag of this client's latest answer (success or error); null
   * before the first. With calls in flight at once, use a call's `onResponse` instead.
   */
  get lastResponse(): ResponseInfo | null {
    return this.#last
  }

  /**
   * One call with retries. `idempotent`: the operation honours Idempotency-Key, so a POST that may be retried
   * carries one (the caller's or the SDK's own) and is charged once whatever happens to the answers.
   */
  protected async request<T>(method: Method, path: string, body: unknown, options: CallOptions = {}, idempotent = false): Promise<T> {
    const maxRetries = options.maxRetries ?? this.maxRetries
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value
    if (options.dryRun) headers['service-dry-run'] = '1'
    if (options.testOutcome) headers['service-test-outcome'] = options.testOutcome
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey
    else if (idempotent && method !== 'GET' && maxRetries > 0 && !options.dryRun && !headers['idempotency-key'])
      headers['idempotency-key'] = `sdk_${crypto.randomUUID()}`
    const payload = body === undefined ? undefined : JSON.stringify(body)
    for (let attempt = 0; ; attempt++) {
      let res: Response
      try {
        res = await this.fetcher(this.baseUrl + path, { method, headers, body: payload, signal: options.signal })
      } catch (e) {
        if (options.signal?.aborted) throw e
        // The request may or may not have arrived; resending is safe only under an idempotency key (or a GET).
        const safe = method === 'GET' || headers['idempotency-key'] !== undefined
        if (!safe || attempt >= maxRetries)
          throw new ApiError(0, 'network_error', `Could not reach ${this.baseUrl}: ${(e as Error).message}`, null)
        await sleep(backoffMs(attempt, this.maxRetryDelayMs), options.signal)
        continue
      }
      const text = await res.text()
      const info = responseInfo(res)
      this.#last = info
      if (res.ok) {
        options.onResponse?.(info)
        // JSON, or the text of an export (text/csv).
        const json = /^application\/json\b/.test(res.headers.get('content-type') ?? 'application/json')
        return (text ? (json ? JSON.parse(text) : text) : undefined) as T
      }
      const error = toApiError(res, text, info)
      // A Retry-After longer than the client waits is the answer: throw now rather than retry early.
      const tooLong = error.retryAfter !== null && error.retryAfter * 1000 > this.maxRetryDelayMs
      if (attempt >= maxRetries || tooLong || !isRetryable(error.status, error.code, error.retryAfter)) {
        options.onResponse?.(info)
        throw error
      }
      await sleep(error.retryAfter !== null ? error.retryAfter * 1000 : backoffMs(attempt, this.maxRetryDelayMs), options.signal)
    }
  }

  /** A cursor-paginated GET: awaited, its first page; iterated (`for await`), every item of every page. */
  protected list<Page extends { nextCursor?: string }, Item>(
    path: string,
    query: object | undefined,
    items: (page: Page) => Item[],
    options?: RequestOptions,
  ): List<Page, Item> {
    return new List(
      (cursor) => this.request<Page>('GET', path + queryString(cursor ? { ...query, cursor } : query), undefined, options),
      items,
    )
  }

  /**
   * A GET answered with JSON Lines: each line parsed as it arrives (the answer is never held whole). An error
   * answer throws before the first line; a connection that fails before the answer is retried like a GET.
   */
  protected async *jsonLines<Line>(path: string, options: RequestOptions = {}): AsyncGenerator<Line, void, undefined> {
    const maxRetries = options.maxRetries ?? this.maxRetries
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/x-ndjson' }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value
    let res: Response
    for (let attempt = 0; ; attempt++) {
      try {
        res = await this.fetcher(this.baseUrl + path, { method: 'GET', headers, signal: options.signal })
      } catch (e) {
        if (options.signal?.aborted || attempt >= maxRetries)
          throw new ApiError(0, 'network_error', `Could not reach ${this.baseUrl}: ${(e as Error).message}`, null)
        await sleep(backoffMs(attempt, this.maxRetryDelayMs), options.signal)
        continue
      }
      const info = responseInfo(res)
      this.#last = info
      options.onResponse?.(info)
      if (res.ok) break
      const error = toApiError(res, await res.text(), info)
      if (attempt >= maxRetries || !isRetryable(error.status, error.code, error.retryAfter)) throw error
      await sleep(error.retryAfter !== null ? error.retryAfter * 1000 : backoffMs(attempt, this.maxRetryDelayMs), options.signal)
    }
    if (!res.body) return
    const decoder = new TextDecoder()
    let rest = ''
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true })
      const lines = rest.split('\n')
      rest = lines.pop()!
      for (const line of lines) if (line) yield JSON.parse(line) as Line
    }
    rest += decoder.decode()
    if (rest) yield JSON.parse(rest) as Line
  }

  /** Polls `read` until the job has ended (succeeded or failed), or the timeout or signal stops it. */
  protected async poll<J extends { status: string }>(read: () => Promise<J>, options: WaitOptions = {}): Promise<J> {
    const interval = options.intervalMs ?? 1000
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000)
    for (;;) {
      const job = await read()
      if (job.status === 'succeeded' || job.status === 'failed') return job
      if (Date.now() + interval > deadline)
        throw new ApiError(
          0,
          'timeout',
          `The job had not ended after ${options.timeoutMs ?? 600_000} ms (last status: ${job.status}).`,
          null,
        )
      await sleep(interval, options.signal)
    }
  }
}

/**
 * The answer of a list method. `await` it for the first page (with `nextCursor`); `for await` over it for every
 * item, newest first, the next page fetched when the last one is used up; `pages()` for every page.
 */
export class List<Page extends { nextCursor?: string }, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  #first: Promise<Page> | undefined
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly items: (page: Page) => Item[],
  ) {}

  then<A = Page, B = never>(
    onfulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.#first ??= this.fetchPage(undefined)
    return this.#first.then(onfulfilled, onrejected)
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.then(undefined, onrejected)
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor: string | undefined
    do {
      const page = await this.fetchPage(cursor)
      yield page
      cursor = page.nextCursor
    } while (cursor)
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.items(page)
  }
}

export interface WaitOptions {
  /** Between two reads. Default 1000 ms. */
  intervalMs?: number
  /** Give up (ApiError code 'timeout') after this long. Default 10 minutes. */
  timeoutMs?: number
  signal?: AbortSignal
}

function toApiError(res: Response, text: string, info: ResponseInfo): ApiError {
  try {
    const { error } = JSON.parse(text) as { error: { code: ErrorCode; message: string; requestId?: string; details?: ErrorDetail[] } }
    return new ApiError(res.status, error.code, error.message, error.requestId ?? info.requestId, error.details ?? [], info.retryAfter)
  } catch {
    return new ApiError(res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText, info.requestId, [], info.retryAfter)
  }
}

// ---------------------------------------------------------------------------------------------------------
// Webhooks

export interface VerifyOptions {
  /** Standard Webhooks: the largest distance between webhook-timestamp and now. Default 300 s. */
  toleranceSeconds?: number
  /** X-Service-Signature only (no signed timestamp header): the oldest payload `createdAt` accepted. Default 3 h, the span of the retry schedule. */
  maxAgeSeconds?: number
  now?: () => Date
}

/** Raised when a webhook's signature or timestamp does not check out; answer it with 400 or 401. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError'
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>

const isHeaders = (headers: HeaderBag): headers is Headers => typeof (headers as Headers).get === 'function'

function header(headers: HeaderBag, name: string): string | undefined {
  if (isHeaders(headers)) return headers.get(name) ?? undefined
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v
  return undefined
}

const encoder = new TextEncoder()

function base64ToBytes(value: string): Uint8Array | null {
  const normal = value.replace(/-/g, '+').replace(/_/g, '/')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return null
  try {
    const binary = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, '='))
    return Uint8Array.from(binary, (c) => c.charCodeAt(0))
  } catch {
    return null
  }
}

function hexToBytes(value: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(value)) return null
  return Uint8Array.from(value.match(/../g)!, (h) => parseInt(h, 16))
}

async function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
}

/**
 * Verifies a webhook delivery over the raw body (the exact bytes received, before any JSON parsing) and
 * returns the parsed event. With Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
 * it checks `v1,<base64 HMAC-SHA256 of id.timestamp.body>` (key: the secret's base64 part after `whsec_`)
 * and that the timestamp is within `toleranceSeconds`; otherwise it checks `X-Service-Signature:
 * sha256=<hex HMAC-SHA256 of the body>` (key: the whole secret) and the payload's `createdAt` age. The
 * comparison is Web Crypto's HMAC verify, which runs in constant time. `secret` may be several (the new and the
 * previous one during a rotation): any one verifying is enough. Throws WebhookVerificationError.
 */
export async function verifyWebhookSignature<E>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<E> {
  // Several secrets (a rotation under way on the receiver's side): the delivery verifies if any one of them does.
  if (typeof secret !== 'string') {
    if (!secret.length) throw new WebhookVerificationError('No secret to verify with.')
    let last: unknown
    for (const one of secret) {
      try {
        return await verifyWebhookSignature<E>(rawBody, headers, one, options)
      } catch (e) {
        if (!(e instanceof WebhookVerificationError)) throw e
        last = e
      }
    }
    throw last
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)
  const now = (options.now?.() ?? new Date()).getTime() / 1000
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (id && timestamp && signatures) {
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.')
    if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
      throw new WebhookVerificationError('webhook-timestamp is too old or too far in the future.')
    const keyBytes = base64ToBytes(secret.replace(/^whsec_/, ''))
    if (!keyBytes) throw new WebhookVerificationError('The secret is not a whsec_<base64> secret.')
    const key = await hmacKey(keyBytes)
    const signed = encoder.encode(`${id}.${timestamp}.${body}`)
    for (const candidate of signatures.split(' ')) {
      const [version, value] = candidate.split(',', 2)
      const mac = version === 'v1' && value ? base64ToBytes(value) : null
      if (mac && (await crypto.subtle.verify('HMAC', key, mac as BufferSource, signed))) return parseEvent<E>(body)
    }
    throw new WebhookVerificationError('No webhook-signature matches.')
  }
  const legacy = header(headers, 'x-service-signature')
  const mac = legacy?.startsWith('sha256=') ? hexToBytes(legacy.slice(7)) : null
  if (!mac) throw new WebhookVerificationError('The delivery carries neither webhook-signature nor X-Service-Signature.')
  const key = await hmacKey(encoder.encode(secret))
  if (!(await crypto.subtle.verify('HMAC', key, mac as BufferSource, encoder.encode(body))))
    throw new WebhookVerificationError('X-Service-Signature does not match.')
  const event = parseEvent<E & { createdAt?: string }>(body)
  const created = Date.parse(event.createdAt ?? '') / 1000
  if (Number.isNaN(created)) throw new WebhookVerificationError('The payload has no createdAt to check.')
  if (now - created > (options.maxAgeSeconds ?? 3 * 3600) || created - now > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('The payload createdAt is outside the accepted window.')
  }
  return event
}

function parseEvent<E>(body: string): E {
  try {
    return JSON.parse(body) as E
  } catch {
    throw new WebhookVerificationError('The body is not JSON.')
  }
}
