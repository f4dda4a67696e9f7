// GET /v1/usage/summary: per day, endpoint, key or Service-Metadata tag, the calls, credits, errors and latency
// percentiles of the caller's mode, read from the hourly rollups the request log and the charges keep current.
import t from 'tap'
import { startTestApp, testCapability } from '../helpers/app.ts'

const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'alpha', price: 3 }), testCapability({ name: 'beta', price: 2 })],
})
const HOUR = 3600_000
const hourFloor = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR)

t.test('calls, credits and errors per endpoint, key and tag, as the calls were made', async (t) => {
  const c = await app.customer(100)
  const tags = { 'service-metadata': JSON.stringify({ team: 'search' }) }
  for (let i = 0; i < 3; i++) t.equal((await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' }, headers: tags })).status, 200)
  t.equal((await app.call('/v1/beta', { key: c.key, body: { text: 'hi' } })).status, 200)
  t.equal((await app.call('/v1/beta', { key: c.key, body: { text: '' } })).status, 400)
  await app.services.requestLog.flush()
  const from = hourFloor(Date.now() - HOUR).toISOString()
  const to = hourFloor(Date.now() + 2 * HOUR).toISOString()

  const byEndpoint = await app.call(`/v1/usage/summary?from=${from}&to=${to}&groupBy=endpoint`, { key: c.key })
  t.equal(byEndpoint.status, 200)
  t.match(byEndpoint.body, {
    from,
    to,
    groupBy: 'endpoint',
    groups: [
      { key: '/v1/alpha', calls: 3, credits: 9, errors: 0, p50Ms: Number, p95Ms: Number },
      { key: '/v1/beta', calls: 2, credits: 2, errors: 1 },
    ],
    total: { calls: 5, credits: 11, errors: 1 },
  })
  const byKey = await app.call(`/v1/usage/summary?from=${from}&to=${to}&groupBy=key`, { key: c.key })
  t.same(
    byKey.body.groups.map((g: { key: string; calls: number }) => [g.key, g.calls]),
    [[c.keyId, 5]],
  )
  const byTag = await app.call(`/v1/usage/summary?from=${from}&to=${to}&groupBy=metadata.team`, { key: c.key })
  t.match(byTag.body.groups, [{ key: 'search', calls: 3, credits: 9, errors: 0 }])
  t.equal(byTag.body.groups.length, 1)
  const byDay = await app.call(`/v1/usage/summary?from=${from}&to=${to}&groupBy=day`, { key: c.key })
  t.equal(byDay.body.total.credits, 11)

  const other = await app.customer(10)
  const theirs = await app.call(`/v1/usage/summary?from=${from}&to=${to}&groupBy=endpoint`, { key: other.key })
  t.same(theirs.body.groups, [], 'another account sees none of it')
  const earlier = await app.call(`/v1/usage/summary?from=${hourFloor(Date.now() - 5 * HOUR).toISOString()}&to=${from}&groupBy=day`, {
    key: c.key,
  })
  t.same(earlier.body.total, { calls: 0, credits: 0, errors: 0 }, 'to is exclusive: an earlier window holds none of it')
})

t.test('p50 and p95 agree with the exact percentiles of the logged latencies, within one bucket', async (t) => {
  const c = await app.customer(0)
  const at = hourFloor(Date.now() - 48 * HOUR)
  // Latencies spread from under a millisecond to ten seconds, written as the request log writes them (one batch).
  const latencies = Array.from({ length: 997 }, (_, i) => Math.round(((10000 * ((i * 7919) % 997) ** 3) / 997 ** 3) * 100) / 100)
  await app.services.db.sql(
    `insert into request_log (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, latency_ms, created_at)
     select ?, ?, 'ksk_live_abc', 'live', 'req_p' || i, 'POST', '/v1/alpha', 200, l, ?::timestamptz + make_interval(secs => i)
       from unnest(?::real[]) with ordinality as u(l, i)`,
    [c.accountId, c.keyId, at, `{${latencies.join(',')}}`],
  )
  const res = await app.call(
    `/v1/usage/summary?from=${at.toISOString()}&to=${new Date(at.getTime() + 24 * HOUR).toISOString()}&groupBy=day`,
    { key: c.key },
  )
  t.equal(res.status, 200)
  const [group] = res.body.groups
  t.equal(group.calls, 997)
  const sorted = [...latencies].sort((a, b) => a - b)
  const exact = (p: number) => sorted[Math.ceil(p * sorted.length) - 1]!
  for (const [name, p] of [
    ['p50Ms', 0.5],
    ['p95Ms', 0.95],
  ] as const) {
    const reported = group[name] as number
    t.ok(
      exact(p) < reported && reported <= Math.max(1, exact(p) * 1.25 + 1),
      `${name} ${reported} bounds the exact ${exact(p)} within a bucket`,
    )
  }
})

t.test('a test key reads test calls; bad windows are 400s', async (t) => {
  const c = await app.customer(10)
  const from = hourFloor(Date.now()).toISOString()
  const to = new Date(hourFloor(Date.now()).getTime() + HOUR).toISOString()
  for (const [query, why] of [
    [`from=${from}&to=${from}&groupBy=day`, 'an empty window'],
    [`from=2026-01-01T00:30:00Z&to=${to}&groupBy=day`, 'not a whole hour'],
    [`from=2024-01-01T00:00:00Z&to=2025-06-01T00:00:00Z&groupBy=day`, 'more than 400 days'],
    [`from=${from}&to=${to}&groupBy=model`, 'an unknown grouping'],
    [`from=${from}&groupBy=day`, 'no end'],
  ] as const) {
    const res = await app.call(`/v1/usage/summary?${query}`, { key: c.key })
    t.equal(res.status, 400, why)
    t.equal(res.body.error.code, 'invalid_request')
  }
})
