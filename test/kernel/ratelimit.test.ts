// C6: per key and endpoint, in memory always, and in Redis when REDIS_URL is set (shared across
// instances); a Redis that fails mid-flight falls back to memory without failing the call.
import t from 'tap'
import { createRateLimiter } from '../../core/ratelimit.ts'

t.test('memory: per key, per endpoint, with a reset in whole seconds', async (t) => {
  const limiter = createRateLimiter(undefined)
  t.teardown(() => limiter.close())
  const first = await limiter.consume('parse', 'key-a', 2)
  t.same(first, { allowed: true, limit: 2, remaining: 1, resetSeconds: 60 })
  t.equal((await limiter.consume('parse', 'key-a', 2)).allowed, true)
  const third = await limiter.consume('parse', 'key-a', 2)
  t.equal(third.allowed, false)
  t.equal(third.remaining, 0)
  t.ok(third.resetSeconds >= 1 && third.resetSeconds <= 60)
  t.equal((await limiter.consume('parse', 'key-b', 2)).allowed, true, 'another key has its own budget')
  t.equal((await limiter.consume('extract', 'key-a', 2)).allowed, true, 'another endpoint has its own budget')
})

const redisUrl = process.env.REDIS_URL
t.test('redis: two instances share one budget', { skip: redisUrl ? false : 'REDIS_URL is not set' }, async (t) => {
  const a = createRateLimiter(redisUrl)
  const b = createRateLimiter(redisUrl)
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  await new Promise((r) => setTimeout(r, 200)) // connect
  const key = `key-${process.pid}-${Date.now()}`
  t.equal((await a.consume('parse', key, 3)).allowed, true)
  t.equal((await b.consume('parse', key, 3)).allowed, true)
  t.equal((await a.consume('parse', key, 3)).remaining, 0)
  t.equal((await b.consume('parse', key, 3)).allowed, false, 'the second instance sees the first one’s calls')
})

t.test('a Redis that is down: calls are limited in memory, never failed', async (t) => {
  const logs: string[] = []
  const limiter = createRateLimiter('redis://127.0.0.1:1', (m) => logs.push(m))
  t.teardown(() => limiter.close())
  const first = await limiter.consume('parse', 'key-x', 2)
  t.equal(first.allowed, true)
  await limiter.consume('parse', 'key-x', 2)
  t.equal((await limiter.consume('parse', 'key-x', 2)).allowed, false, 'the insurance limiter still limits')
  await new Promise((r) => setTimeout(r, 100))
  t.ok(
    logs.some((l) => /redis/i.test(l)),
    'the fallback is logged',
  )
})
