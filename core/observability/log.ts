// Structured logs (pino): one JSON line per event, one access line per request, errors without secrets.
// Nothing here logs a request body, a header, a key or an SQL statement: only what is named below.
import type { Middleware } from 'koa'
import { pino, type DestinationStream, type Logger } from 'pino'
import type { Metrics } from './metrics.ts'

export type { Logger }

export interface LogOptions {
  /** pino level: fatal, error, warn, info, debug, trace or silent (LOG_LEVEL). */
  level: string
  /** Human-readable lines through pino-pretty, for development (LOG_PRETTY=true). */
  pretty?: boolean
}

export function createLogger(opts: LogOptions, destination?: DestinationStream): Logger {
  const options = { level: opts.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }
  if (destination) return pino(options, destination)
  if (opts.pretty) return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } })
  // Batched: one write per 12 KiB of lines (sonic-boom's cap is 16 KiB) or per second, not a blocking write per
  // request (pino's default, 4 % of a live call's CPU in the profile); 4 KiB batches still cost 2 % of a dry
  // run's samples, 12 KiB 1 %. pino flushes what is left when the process exits.
  const stdout = pino.destination({ minLength: 12 * 1024, sync: false })
  setInterval(() => stdout.flush(), LOG_FLUSH_MS).unref()
  return pino(options, stdout)
}

const LOG_FLUSH_MS = 1000

/**
 * What the pipeline learns about a request, for its access line: set by auth (account, key prefix), by the
 * capability call (credits captured) and by the error handler (code).
 */
export interface AccessState {
  requestId?: string
  accountId?: string
  keyPrefix?: string
  credits?: number
  errorCode?: string
}

/** Stage 0 companion: after everything else has answered, one `request` line and the request metrics. */
export function accessLog(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      const state = ctx.state as AccessState
      // The route pattern, never the raw path: ids stay out of labels and the access line has one shape per route.
      const route: string = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched'
      const line = {
        reqId: state.requestId,
        method: ctx.method,
        route,
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
        account: state.accountId,
        keyPrefix: state.keyPrefix,
        credits: state.credits ?? 0,
        ...(state.errorCode ? { code: state.errorCode } : {}),
      }
      logger[ctx.status >= 500 ? 'error' : 'info'](line, 'request')
      metrics.request({
        method: ctx.method,
        route,
        status: ctx.status,
        seconds: ms / 1000,
        code: state.errorCode,
      })
    }
  }
}

/** An error as logs may show it: class, code and stack frames, never the message (a database error's message
 *  carries the SQL with its bound values: key hashes, secrets). */
export function safeError(e: unknown): { type: string; code?: string; sqlState?: string; stack?: string } {
  if (!(e instanceof Error)) return { type: typeof e }
  const code = (e as { code?: unknown }).code
  const frames = e.stack
    ?.split('\n')
    .filter((l) => /^\s+at /.test(l))
    .slice(0, 8)
    .join('\n')
  const sqlState = (e as { sqlState?: unknown }).sqlState
  return {
    type: e.constructor.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    ...(typeof sqlState === 'string' ? { sqlState } : {}),
    ...(frames ? { stack: frames } : {}),
  }
}
