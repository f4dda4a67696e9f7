// Stage 0 (C1): every response carries X-Request-Id, and every error body carries the same id.
import { randomFillSync } from 'node:crypto'
import type { Middleware } from 'koa'
import { ulid } from 'ulid'

// ulid's default source asks crypto for one byte per character (16 calls per id); the same bytes drawn
// from a pool refilled 4 KiB at a time cost one call per 256 ids.
const pool = new Uint8Array(4096)
let used = pool.length
const randomByteFraction = () => {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  return pool[used++]! / 256
}

// Not async: nothing to do after the rest, so no suspended frame per request in flight.
export const requestId: Middleware = (ctx, next) => {
  const id = `req_${ulid(undefined, randomByteFraction)}`
  ctx.state.requestId = id
  ctx.set('X-Request-Id', id)
  return next()
}
