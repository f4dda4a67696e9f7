// Outbound HTTP to user-supplied URLs (C8 webhooks, C12 file fetches). Every connection goes through
// resolvePublicTarget and is pinned to the address it checked (custom `lookup`), so DNS rebinding between
// check and connect is impossible. node:http is used instead of fetch because fetch cannot pin the address.
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { AddressRefused, resolvePublicTarget, type Resolver } from './address-guard.ts'

export type FetchErrorKind = 'refused' | 'too_large' | 'timeout' | 'http_status' | 'network' | 'too_many_redirects'

export class FetchError extends Error {
  override readonly name = 'FetchError'
  readonly kind: FetchErrorKind
  readonly status?: number
  constructor(kind: FetchErrorKind, message: string, status?: number) {
    super(message)
    this.kind = kind
    this.status = status
  }
}

const MiB = 1024 * 1024
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const POST_DRAIN_LIMIT = 64 * 1024

interface HopOptions {
  allowPrivate: boolean
  resolver?: Resolver | undefined
  schemes: readonly string[]
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  signal: AbortSignal
}

// Guard + connect in one step: the only way this module opens a connection, so every hop is checked.
async function openHop(url: URL, opts: HopOptions): Promise<http.IncomingMessage> {
  const target = await untilAborted(
    resolvePublicTarget(url, { allowPrivate: opts.allowPrivate, resolver: opts.resolver, schemes: opts.schemes }),
    opts.signal,
  )
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const lookup: LookupFunction = (_hostname, options, cb) => {
    if (options.all) cb(null, [{ address: target.address, family: target.family }])
    else cb(null, target.address, target.family)
  }
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body))
  const isHttps = url.protocol === 'https:'
  return new Promise((resolve, reject) => {
    const req = (isHttps ? https : http).request({
      method: opts.method,
      host,
      port: url.port || (isHttps ? 443 : 80),
      path: url.pathname + url.search,
      headers,
      lookup,
      agent: false, // no pooled sockets: a reused socket would skip the per-request check
      signal: opts.signal,
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
    })
    req.once('response', resolve)
    req.once('error', reject)
    req.end(opts.body)
  })
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** An AbortSignal's reason is an Error unless someone aborted with something else. */
const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError')

// Reads the body up to `limit` bytes. With `truncate`, stops quietly at the limit; otherwise fails with too_large.
function readBody(res: http.IncomingMessage, limit: number, signal: AbortSignal, truncate: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (err?: Error) => {
      if (done) return
      done = true
      signal.removeEventListener('abort', onAbort)
      res.removeAllListeners('data')
      if (err !== undefined) {
        res.destroy()
        reject(err)
      } else resolve(Buffer.concat(chunks))
    }
    const onAbort = () => finish(abortReason(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    res.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        res.destroy()
        return truncate ? finish() : finish(new FetchError('too_large', `response body exceeds ${limit} bytes`))
      }
      chunks.push(chunk)
    })
    res.once('end', () => finish())
    res.once('error', (e) => finish(e))
    res.once('close', () => finish(res.complete ? undefined : new Error('connection closed')))
  })
}

// Maps anything thrown during a request to a FetchError with a message that never echoes internal addresses.
function toFetchError(err: unknown, timeout: AbortSignal, timeoutMs: number, caller?: AbortSignal): unknown {
  if (err instanceof FetchError) return err
  if (caller?.aborted) return caller.reason // the caller cancelled: give them their own reason back
  if (timeout.aborted) return new FetchError('timeout', `timed out after ${timeoutMs} ms`)
  if (err instanceof AddressRefused) return new FetchError('refused', err.message)
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return new FetchError('network', code ? `network error (${code})` : 'network error')
}

export async function fetchPublic(
  url: string,
  opts: {
    allowPrivate: boolean
    resolver?: Resolver
    maxBytes?: number
    timeoutMs?: number
    maxRedirects?: number
    signal?: AbortSignal
  },
): Promise<{ bytes: Buffer; contentType: string | null; finalUrl: string }> {
  const maxBytes = opts.maxBytes ?? 20 * MiB
  const timeoutMs = opts.timeoutMs ?? 20_000
  const maxRedirects = opts.maxRedirects ?? 3
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout
  const hop = { allowPrivate: opts.allowPrivate, resolver: opts.resolver, schemes: ['http:', 'https:'] }
  try {
    let current: URL
    try {
      current = new URL(url)
    } catch {
      throw new FetchError('refused', 'invalid URL')
    }
    for (let redirects = 0; ; redirects++) {
      const res = await openHop(current, { ...hop, method: 'GET', signal })
      const status = res.statusCode ?? 0
      const location = res.headers.location
      if (REDIRECTS.has(status) && location) {
        res.destroy()
        if (redirects >= maxRedirects) throw new FetchError('too_many_redirects', `more than ${maxRedirects} redirects`)
        try {
          current = new URL(location, current)
        } catch {
          throw new FetchError('http_status', 'redirect with an invalid Location', status)
        }
        continue
      }
      if (status < 200 || status > 299) {
        res.destroy()
        throw new FetchError('http_status', `remote server answered HTTP ${status}`, status)
      }
      // Fail fast on an announced size; the streaming cap below still guards against lying servers.
      if (Number(res.headers['content-length']) > maxBytes) {
        res.destroy()
        throw new FetchError('too_large', `response body exceeds ${maxBytes} bytes`)
      }
      const bytes = await readBody(res, maxBytes, signal, false)
      return { bytes, contentType: res.headers['content-type'] ?? null, finalUrl: current.href }
    }
  } catch (err) {
    throw toFetchError(err, timeout, timeoutMs, opts.signal)
  }
}

export async function postPublic(
  url: string,
  opts: { body: string; headers: Record<string, string>; allowPrivate: boolean; resolver?: Resolver; timeoutMs?: number },
): Promise<{ status: number; durationMs: number }> {
  const timeoutMs = opts.timeoutMs ?? 10_000
  const timeout = AbortSignal.timeout(timeoutMs)
  const started = performance.now()
  try {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      throw new FetchError('refused', 'invalid URL')
    }
    const res = await openHop(target, {
      allowPrivate: opts.allowPrivate,
      resolver: opts.resolver,
      schemes: ['https:'],
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      signal: timeout,
    })
    const status = res.statusCode ?? 0
    const durationMs = Math.round(performance.now() - started)
    // Never follow redirects (C8): the status is the answer. Drain a little so the peer sees a clean read,
    // but a slow or huge body must not change the outcome.
    await readBody(res, POST_DRAIN_LIMIT, timeout, true).catch(() => undefined)
    res.destroy()
    return { status, durationMs }
  } catch (err) {
    throw toFetchError(err, timeout, timeoutMs)
  }
}

/**
 * One request to a user-supplied URL, redirects not followed (an OpenID provider's endpoints): the status, headers
 * and body (at most `maxBytes`), through the same guard and pinned connection as every other outbound request.
 */
export async function requestPublic(
  url: string,
  opts: {
    method: 'GET' | 'POST'
    headers?: Record<string, string>
    body?: string
    allowPrivate: boolean
    resolver?: Resolver
    schemes: readonly string[]
    maxBytes?: number
    timeoutMs?: number
    signal?: AbortSignal
  },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  const timeoutMs = opts.timeoutMs ?? 10_000
  const maxBytes = opts.maxBytes ?? MiB
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout
  try {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      throw new FetchError('refused', 'invalid URL')
    }
    const res = await openHop(target, {
      allowPrivate: opts.allowPrivate,
      resolver: opts.resolver,
      schemes: opts.schemes,
      method: opts.method,
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      signal,
    })
    const bytes = await readBody(res, maxBytes, signal, false)
    return { status: res.statusCode ?? 0, headers: res.headers, bytes }
  } catch (err) {
    throw toFetchError(err, timeout, timeoutMs, opts.signal)
  }
}
