// Stage 2 (C6): per key and endpoint; dry runs and replays count. The RateLimit-* headers go on every
// capability response, 429 included.
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'
import type { RateLimiter } from '../ratelimit.ts'

export async function throttle(ctx: Context, limiter: RateLimiter, endpoint: string, keyId: string, perMinute: number): Promise<void> {
  const d = await limiter.consume(endpoint, keyId, perMinute)
  ctx.set('RateLimit-Limit', String(d.limit))
  ctx.set('RateLimit-Remaining', String(d.remaining))
  ctx.set('RateLimit-Reset', String(d.resetSeconds))
  if (!d.allowed) throw rateLimited(d.limit, d.resetSeconds)
}

/** The 429 of stage 2, worded once for the limiter and for a test key's simulated outcome. */
export function rateLimited(limit: number, resetSeconds: number): ApiError {
  return new ApiError('rate_limited', `Rate limit of ${limit} calls per minute reached for this key on this endpoint.`, undefined, {
    'Retry-After': String(resetSeconds),
  })
}
