// The hand-written part of the SDK: transport, retries, errors, job polling, webhook verification.
// index.ts (generated from the capability manifests by scripts/generate-sdk.ts) adds one typed method per
// endpoint on top of this. Zero dependencies: global fetch and Web Crypto (Node ≥ 20, browsers, Deno, Bun).

export interface ClientOptions {
  /** The ksk_live_… key, sent as `Authorization: Bearer`. */
  apiKey: string
  /** Default http://localhost:3000. */
  baseUrl?: string
  /** Retries of 429, 503, 409 idempotency_key_in_use and network errors. Default 2; 0 turns retries off. */
  maxRetries?: number
  /** Upper bound of one backoff wait, Retry-After included. Default 30 000 ms. */
  maxRetryDelayMs?: number
  /** Another fetch (tests, proxies). Default: the global one. */
  fetch?: typeof fetch
}

export interface CallOptions {
  /** Quote the call (`Service-Dry-Run: 1`): nothing runs, nothing is charged; returns the DryRun report. */
  dryRun?: boolean
  /** Sent as `Idempotency-Key`. When retries are on and none is given, the SDK makes one per call. */
  idempotencyKey?: string
  signal?: AbortSignal
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number
}

import type { ErrorCode } from './index.js'

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

/** Whether a refusal may succeed if sent again unchanged: rate limits, unavailability, a key still running. */
export function isRetryable(status: number, code: string): boolean {
  return status === 429 || status === 503 || (status === 409 && code === 'idempotency_key_in_use')
}

/** Exponential backoff with full jitter over [base/2, base]; Retry-After, when sent, is the floor. */
export function backoffMs(attempt: number, retryAfterSeconds: number | null, maxMs: number): number {
  const base = Math.min(maxMs, 500 * 2 ** attempt)
  const jittered = base / 2 + Math.random() * (base / 2)
  return Math.min(maxMs, Math.max(jittered, (retryAfterSeconds ?? 0) * 1000))
}

/** `?a=1&b=x` from the defined values of a flat object ('' when there are none). */
export function queryString(query: object | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== null)
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : ''
}

export class BaseClient {
  readonly baseUrl: string
  protected readonly apiKey: string
  protected readonly maxRetries: number
  protected readonly maxRetryDelayMs: number
  protected readonly fetcher: typeof fetch

  constructor(options: ClientOptions) {
    if (!options?.apiKey) throw new TypeError('apiKey is required')
    this.apiKey = options.apiKey
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '')
    this.maxRetries = options.maxRetries ?? 2
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000
    this.fetcher = options.fetch ?? ((...args) => fetch(...args))
  }

  /** One call with retries. A POST that may be retried always carries an Idempotency-Key, so it is charged once. */
  protected async request<T>(method: 'GET' | 'POST', path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    const maxRetries = options.maxRetries ?? this.maxRetries
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (options.dryRun) headers['service-dry-run'] = '1'
    const idempotencyKey =
      options.idempotencyKey ?? (method === 'POST' && maxRetries > 0 && !options.dryRun ? `sdk_${crypto.randomUUID()}` : undefined)
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
    const payload = body === undefined ? undefined : JSON.stringify(body)
    for (let attempt = 0; ; attempt++) {
      let res: Response
      try {
        res = await this.fetcher(this.baseUrl + path, { method, headers, body: payload, signal: options.signal })
      } catch (e) {
        if (options.signal?.aborted) throw e
        // The request may or may not have arrived; resending is safe only under an idempotency key (or a GET).
        const safe = method === 'GET' || idempotencyKey !== undefined
        if (!safe || attempt >= maxRetries)
          throw new ApiError(0, 'network_error', `Could not reach ${this.baseUrl}: ${(e as Error).message}`, null)
        await sleep(backoffMs(attempt, null, this.maxRetryDelayMs), options.signal)
        continue
      }
      const text = await res.text()
      if (res.ok) return JSON.parse(text) as T
      const error = toApiError(res, text)
      if (attempt >= maxRetries || !isRetryable(error.status, error.code)) throw error
      await sleep(backoffMs(attempt, error.retryAfter, this.maxRetryDelayMs), options.signal)
    }
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

export interface WaitOptions {
  /** Between two reads. Default 1000 ms. */
  intervalMs?: number
  /** Give up (ApiError code 'timeout') after this long. Default 10 minutes. */
  timeoutMs?: number
  signal?: AbortSignal
}

function toApiError(res: Response, text: string): ApiError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'))
  const requestId = res.headers.get('x-request-id')
  try {
    const { error } = JSON.parse(text) as { error: { code: ErrorCode; message: string; requestId?: string; details?: ErrorDetail[] } }
    return new ApiError(res.status, error.code, error.message, error.requestId ?? requestId, error.details ?? [], retryAfter)
  } catch {
    return new ApiError(res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText, requestId, [], retryAfter)
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
 * comparison is Web Crypto's HMAC verify, which runs in constant time. Throws WebhookVerificationError.
 */
export async function verifyWebhookSignature<E>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: VerifyOptions = {},
): Promise<E> {
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
