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
  return pino(options)
}

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
      metrics.request({ method: ctx.method, route, status: ctx.status, seconds: ms / 1000, credits: state.credits ?? 0, code: state.errorCode })
    }
  }
}

/**
 * An unexpected error, fit for a log line: its type, its stack frames, and for database errors only the
 * SQLSTATE (a driver error's message quotes the statement and its values, and PostgreSQL's detail quotes rows).
 */
export function safeError(e: unknown): { type: string; message?: string; sqlState?: string; stack?: string } {
  if (!(e instanceof Error)) return { type: typeof e }
  const sqlState = (e as { sqlState?: string }).sqlState ?? (isPgError(e) ? (e as unknown as { code: string }).code : undefined)
  const frames = e.stack?.split('\n').filter((l) => /^\s+at /.test(l)).join('\n')
  return sqlState
    ? { type: e.constructor.name, sqlState, ...(frames ? { stack: frames } : {}) }
    : { type: e.constructor.name, message: e.message, ...(frames ? { stack: frames } : {}) }
}

function isPgError(e: Error): boolean {
  const code = (e as { code?: unknown }).code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && 'severity' in e
}
