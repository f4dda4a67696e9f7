// The fallback chain of a text call: the links (provider, model) in order, each attempt under its own timeout
// except the last one that can still answer, which has the call's whole deadline left. A call moves on where
// another provider can do better (429, 5xx, no connection, a timeout, the context-length error, a model it does
// not serve), never on a 400 that would fail everywhere. A provider that says when to come back (Retry-After) is
// skipped until then.
import type { LanguageModelV4Usage } from '@ai-sdk/provider'
import type { LanguageModel } from 'ai'
import type { ModelPrice } from '../config.ts'
import type { AttemptOutcome, AttemptRecord, TokenUsage } from '../observability/attempt.ts'
import type { ModelCatalog } from './catalog.ts'

/** One provider's open/closed state: open (skipped) until the time its Retry-After named. */
export class Breaker {
  /** Epoch ms until which the provider is skipped; 0: closed. */
  openUntil = 0
  isOpen(now: number): boolean {
    return this.openUntil > now
  }
}

export interface ModelLink {
  /** The provider's label in metrics, logs and the cost report ('primary', 'fallback', or its config name). */
  provider: string
  /** The model name sent to that provider. */
  model: string
  language: LanguageModel
  breaker: Breaker
  /** USD per million tokens; null: no known price (the cost is recorded as null, never as 0). */
  price: ModelPrice | null
  /** The models this provider serves: a 404 for the model is remembered there. */
  catalog?: ModelCatalog
}

/** Who hears about each attempt of a call: metrics, the log line, the call's usage record. */
export interface ModelMeter {
  attempt(record: AttemptRecord): void
  /** The call moved from one provider to the next. */
  fallback(from: string, to: string): void
}

/** Every link's breaker is open: the soonest one reopens in `retryAfterSeconds`. */
export class ProvidersBusy extends Error {
  readonly retryAfterSeconds: number
  constructor(retryAfterSeconds: number) {
    super('every model provider asked us to wait')
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** The longest Retry-After we honour: a provider asking for more is tried again after this. */
const MAX_RETRY_AFTER_MS = 600_000

export function tokenUsage(u: LanguageModelV4Usage): TokenUsage {
  return {
    input: u.inputTokens.total ?? 0,
    output: u.outputTokens.total ?? 0,
    cachedInput: u.inputTokens.cacheRead ?? 0,
    reasoning: u.outputTokens.reasoning ?? 0,
  }
}

export function costUsd(price: ModelPrice | null, t: TokenUsage): number | null {
  if (!price) return null
  const cached = Math.min(t.cachedInput, t.input)
  return (
    ((t.input - cached) * price.inputPerMTok + cached * (price.cachedInputPerMTok ?? price.inputPerMTok) + t.output * price.outputPerMTok) /
    1e6
  )
}

/**
 * Runs `fn` on the links in order until one answers. `signal` is the call's (deadline and client); its abort
 * ends the chain at once and is rethrown for runModel to name. A 4xx other than 429 and the context-length
 * error is the request's own fault and rethrown without trying further.
 */
export async function tryLinks<T extends { usage: LanguageModelV4Usage }>(
  links: readonly ModelLink[],
  attemptTimeoutMs: number | undefined,
  signal: AbortSignal,
  meter: ModelMeter | undefined,
  fn: (link: ModelLink, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const now = Date.now()
  let last = -1
  for (let i = links.length - 1; i >= 0; i--)
    if (!links[i]!.breaker.isOpen(now)) {
      last = i
      break
    }
  if (last < 0) throw new ProvidersBusy(Math.max(1, Math.ceil((Math.min(...links.map((l) => l.breaker.openUntil)) - now) / 1000)))
  let failure: unknown
  let previous: ModelLink | null = null
  let retried = false
  for (let i = 0; i <= last; i++) {
    const link = links[i]!
    // A provider still inside its Retry-After is passed over: the call moves on as if it had failed.
    if (i < last && link.breaker.isOpen(now)) {
      previous = link
      continue
    }
    if (previous) meter?.fallback(previous.provider, link.provider)
    const started = performance.now()
    // The last link that can answer needs no timer of its own: the call's deadline bounds it.
    const attempt = i < last && attemptTimeoutMs ? attemptSignal(signal, attemptTimeoutMs) : null
    try {
      const result = await fn(link, attempt?.signal ?? signal)
      link.breaker.openUntil = 0
      if (meter) {
        const tokens = tokenUsage(result.usage)
        meter.attempt({
          ...names(link),
          outcome: 'ok',
          seconds: (performance.now() - started) / 1000,
          tokens,
          costUsd: costUsd(link.price, tokens),
        })
      }
      return result
    } catch (e) {
      if (signal.aborted) throw e
      const outcome = attempt?.signal.aborted ? 'timeout' : classify(e)
      meter?.attempt({ ...names(link), outcome, seconds: (performance.now() - started) / 1000, costUsd: null })
      if (outcome === 'refused') throw e
      if (outcome === 'model_not_found') link.catalog?.learnMissing(link.model)
      // A kept-alive socket the provider (or its proxy) dropped: the request may never have arrived. One fresh
      // attempt on the same link per call, as HTTP clients do, before a single provider's call fails on it.
      if (outcome === 'connection' && !retried && connectionDropped(e)) {
        retried = true
        i--
        continue
      }
      const wait = retryAfterMs(e)
      if (wait) link.breaker.openUntil = Date.now() + wait
      failure = e
      previous = link
    } finally {
      attempt?.done()
    }
  }
  throw failure
}

const names = (link: ModelLink) => ({ provider: link.provider, model: link.model })

function attemptSignal(call: AbortSignal, timeoutMs: number): { signal: AbortSignal; done(): void } {
  const controller = new AbortController()
  const follow = () => controller.abort(call.reason)
  const timer = setTimeout(() => controller.abort(new DOMException('The attempt timed out.', 'TimeoutError')), timeoutMs)
  call.addEventListener('abort', follow)
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer)
      call.removeEventListener('abort', follow)
    },
  }
}

const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])

/** A connection reset or closed under the request (undici and Node codes, anywhere in the cause chain). */
function connectionDropped(e: unknown): boolean {
  let c = e as { code?: unknown; cause?: unknown } | undefined
  for (let depth = 0; c && depth < 5; depth++, c = c.cause as typeof c) if (DROPPED.has(String(c.code))) return true
  return false
}

interface ProviderError {
  statusCode?: number
  responseHeaders?: Record<string, string>
  responseBody?: string
  message?: string
}

const CONTEXT_LENGTH = /context[_ ]length|context window|maximum context|too many tokens|prompt is too long/i

export function classify(e: unknown): AttemptOutcome {
  const { statusCode, responseBody, message } = (e ?? {}) as ProviderError
  if (statusCode === undefined) return 'connection'
  if (statusCode === 429) return 'rate_limited'
  if (statusCode >= 500) return 'server_error'
  if ((statusCode === 400 || statusCode === 413) && CONTEXT_LENGTH.test(`${responseBody ?? ''} ${message ?? ''}`)) return 'context_length'
  // A model this provider does not serve, or a key it does not know, is this provider's: the next may have them.
  if (statusCode === 404) return 'model_not_found'
  if (statusCode === 401 || statusCode === 403 || statusCode === 408) return 'server_error'
  return 'refused'
}

/** A 429 or 503 with a Retry-After in seconds (or an HTTP date): how long to skip the provider. */
function retryAfterMs(e: unknown): number | null {
  const { statusCode, responseHeaders } = (e ?? {}) as ProviderError
  if (statusCode !== 429 && statusCode !== 503) return null
  const raw = responseHeaders?.['retry-after']
  if (!raw) return null
  const seconds = Number(raw)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(raw) - Date.now()
  return ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null
}
