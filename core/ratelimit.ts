// Per key, per endpoint, calls per minute (C6), and failed authentications per client. Redis when REDIS_URL is set so limits hold across
// instances; if Redis fails mid-flight the in-memory insurance limiter answers and the call goes on.
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { ApiError } from './errors.ts'

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  resetSeconds: number
}

export interface RateLimiter {
  consume(endpoint: string, keyId: string, perMinute: number): Promise<RateDecision>
  close(): Promise<void>
}

export function createRateLimiter(redisUrl: string | undefined, log: (msg: string) => void = console.warn): RateLimiter {
  const redis = redisUrl ? new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false }) : null
  redis?.on('error', (e) => log(`[ratelimit] redis error, using in-memory limits: ${e.message}`))
  const limiters = new Map<string, RateLimiterAbstract>()

  function limiterFor(endpoint: string, perMinute: number): RateLimiterAbstract {
    const id = `${endpoint}:${perMinute}`
    let limiter = limiters.get(id)
    if (!limiter) {
      const keyPrefix = `rl:${endpoint}`
      const memory = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix })
      limiter = redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points: perMinute,
            duration: 60,
            keyPrefix,
            insuranceLimiter: memory,
            rejectIfRedisNotReady: true,
          })
        : memory
      limiters.set(id, limiter)
    }
    return limiter
  }

  return {
    async consume(endpoint, keyId, perMinute) {
      const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
        allowed,
        limit: perMinute,
        remaining: Math.max(0, res.remainingPoints),
        resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      })
      try {
        return decide(await limiterFor(endpoint, perMinute).consume(keyId), true)
      } catch (e) {
        if (e instanceof RateLimiterRes) return decide(e, false)
        throw e
      }
    },
    async close() {
      redis?.disconnect()
    },
  }
}

/**
 * Failed authentications per client address, API keys and operator tokens alike: past `perMinute` failures a
 * client is refused (429 with Retry-After) before its credential is checked. In memory, per process.
 */
export class FailedAuthentications {
  private readonly failures: RateLimiterMemory
  constructor(perMinute = 30) {
    this.failures = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'auth-failures' })
  }

  /** 429 when `client` has used up its failures. */
  async refuseIfOver(client: string): Promise<void> {
    const failed = await this.failures.get(client)
    if (failed && failed.consumedPoints >= this.failures.points) {
      const retry = Math.max(1, Math.ceil(failed.msBeforeNext / 1000))
      throw new ApiError('rate_limited', `Too many failed authentications from this client; retry in ${retry} s.`, undefined, {
        'Retry-After': String(retry),
      })
    }
  }

  async record(client: string): Promise<void> {
    await this.failures.penalty(client, 1)
  }
}
