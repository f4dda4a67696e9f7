// The one error handler (C2): ApiError → its status and `{error: {code, message, requestId, details?}}`;
// anything else is a bug, logged and answered as 500 internal_error without internals.
// The log names the error's class, code and stack frames, never its message: a database error's message
// carries the SQL with its bound values (key hashes, secrets).
import type { Middleware } from 'koa'
import { ApiError, errorBody } from '../errors.ts'

export function errorHandler(log: (m: string) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    } catch (e) {
      const err =
        e instanceof ApiError ? e : new ApiError('internal_error', 'Something went wrong on our side. It has been logged; nothing was charged.')
      if (!(e instanceof ApiError)) log(`[error] ${ctx.state.requestId} ${ctx.method} ${ctx.path}: ${describeError(e)}`)
      ctx.status = err.status
      for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v)
      ctx.body = errorBody(err.code, err.message, ctx.state.requestId, err.details)
    }
  }
}

export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return typeof e
  const code = (e as { code?: unknown }).code
  const frames = (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 8)
  return [`${e.constructor.name}${code !== undefined ? ` code=${String(code)}` : ''}`, ...frames].join('\n')
}
