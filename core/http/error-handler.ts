// The one error handler (C2): ApiError → its status and `{error: {code, message, requestId, details?}}`;
// a database outage is 503 service_unavailable with Retry-After; anything else is a bug, logged and answered as
// 500 internal_error without internals.
// The log names the error's class, code and stack frames, never its message: a database error's message
// carries the SQL with its bound values (key hashes, secrets).
import type { Middleware } from 'koa'
import { serviceUnavailable } from '../db/faults.ts'
import { ApiError, errorBody } from '../errors.ts'
import { safeError, type Logger } from '../observability/log.ts'

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    } catch (e) {
      // A database outage or contention that outlasted its retries is the database's, not a bug (core/db/faults.ts).
      const unavailable = serviceUnavailable(e)
      const err =
        e instanceof ApiError
          ? e
          : (unavailable ?? new ApiError('internal_error', 'Something went wrong on our side. It has been logged; nothing was charged.'))
      if (unavailable)
        logger.warn({ reqId: ctx.state.requestId, code: err.code, err: safeError(unavailable.cause ?? e) }, 'database unavailable')
      else if (!(e instanceof ApiError)) logger.error({ reqId: ctx.state.requestId, code: err.code, err: safeError(e) }, 'unexpected error')
      ctx.state.errorCode = err.code
      ctx.state.errorMessage = err.message
      ctx.status = err.status
      for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v)
      ctx.body = errorBody(err.code, err.message, ctx.state.requestId as string, err.details)
    }
  }
}
