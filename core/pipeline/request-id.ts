// Stage 0 (C1): every response carries X-Request-Id, and every error body carries the same id.
import type { Middleware } from 'koa'
import { ulid } from 'ulid'

export const requestId: Middleware = async (ctx, next) => {
  ctx.state.requestId = `req_${ulid()}`
  ctx.set('X-Request-Id', ctx.state.requestId)
  await next()
}
