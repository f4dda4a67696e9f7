// The result cache (C20) in `npm run bench` (BENCH_ONLY=cache): what a miss adds to a live call (the claim in the
// statement of its hold, the store in its capture's) against the same call that bypasses the cache
// (Service-Cache: no-store), and what a hit costs; then the storage a cached result takes. Every body differs
// (autocannon's [<id>]), so each miss is a real miss; the three take turns at one fixed rate, in alternating order.
import type { ChildProcess } from 'node:child_process'
import type { Query } from '../../core/db/database.ts'

interface Measured {
  r: { requests: number }
  cpu: Record<string, number>
}

export async function benchCache(o: {
  db: Query
  url: string
  procs: { api: ChildProcess[]; model: ChildProcess[] }
  headers: (extra?: Record<string, string>) => Record<string, string>
  measured: (name: string, target: string, opts: Record<string, unknown>, procs: Record<string, ChildProcess[]>) => Promise<Measured>
  seconds: number
}): Promise<string[]> {
  const ROUNDS = 4
  const RATE = 25 // below what misses reach on a loaded machine: the three kinds run at the same rate
  const labels = ['My card was charged twice.', 'billing', 'technical']
  const distinct = JSON.stringify({ text: `${labels[0]} [<id>]`, labels: labels.slice(1) })
  const same = JSON.stringify({ text: labels[0], labels: labels.slice(1) })
  const kinds = {
    bypass: { body: distinct, idReplacement: true, headers: o.headers({ 'service-cache': 'no-store' }) },
    miss: { body: distinct, idReplacement: true, headers: o.headers() },
    hit: { body: same, headers: o.headers() },
  }
  const sum = Object.fromEntries(Object.keys(kinds).map((k) => [k, { api: 0, postgres: 0, model: 0, n: 0 }]))
  const order = Object.keys(kinds) as Array<keyof typeof kinds>
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 ? [...order].reverse() : order) {
      const row = await o.measured(`cache ${kind}`, `${o.url}/v1/classify`, { connections: 10, overallRate: RATE, ...kinds[kind] }, o.procs)
      const s = sum[kind]!
      s.api += row.cpu.api!
      s.postgres += row.cpu.postgres!
      s.model += row.cpu.model!
      s.n += row.r.requests
    }
  }
  const [size] = await o.db.sql<{ n: string; total: string; row: string; sealed: string }>(
    `select count(*) as n, pg_total_relation_size('result_cache') as total, avg(pg_column_size(c.*)) as row, avg(length(result)) as sealed
       from result_cache c`,
  )
  const ms = (k: string, f: 'api' | 'postgres' | 'model') => sum[k]![f] / sum[k]!.n
  const line = (k: string, what: string) =>
    `| ${what} | ${ms(k, 'api').toFixed(3)} | ${ms(k, 'postgres').toFixed(3)} | ${(ms(k, 'api') + ms(k, 'postgres')).toFixed(3)} | ${ms(k, 'model').toFixed(3)} | ${sum[k]!.n} |`
  const both = (k: string) => ms(k, 'api') + ms(k, 'postgres')
  const results = Number(size!.n)
  return [
    `${ROUNDS} rounds of ${o.seconds} s each per kind at ${RATE} calls/s (10 connections), taking turns in alternating order, one hot account, /v1/classify`,
    '',
    '| call | CPU ms/call API | CPU ms/call PostgreSQL | API + PostgreSQL | CPU ms/call model | calls |',
    '|---|---:|---:|---:|---:|---:|',
    line('bypass', 'without the cache (Service-Cache: no-store)'),
    line('miss', 'miss: the claim in the hold, model call, the store in the capture'),
    line('hit', 'hit: the stored result, no model call'),
    `| **miss / without** | ${(ms('miss', 'api') / ms('bypass', 'api')).toFixed(3)} | ${(ms('miss', 'postgres') / ms('bypass', 'postgres')).toFixed(3)} | **${(both('miss') / both('bypass')).toFixed(3)}** | | |`,
    `| **hit / without** | ${(ms('hit', 'api') / ms('bypass', 'api')).toFixed(3)} | ${(ms('hit', 'postgres') / ms('bypass', 'postgres')).toFixed(3)} | **${(both('hit') / both('bypass')).toFixed(3)}** | | |`,
    '',
    `- storage: ${results} cached results take ${(Number(size!.total) / 1024 / 1024).toFixed(1)} MiB with the primary key and expiry index, ` +
      `**${results ? (Number(size!.total) / results).toFixed(0) : '–'} bytes per result** (row ${Number(size!.row).toFixed(0)} bytes, of which the sealed result ${Number(size!.sealed).toFixed(0)} characters of base64)`,
  ]
}
