// `npm run bench`: what the kernel costs. One run, one machine, medians and ratios (these machines are
// shared and noisy; compare figures from the same run only).
//  1. a live call through the whole pipeline (classify, instant mock model) vs a bare Koa route returning
//     the same JSON: requests/s and p50/p99 latency at 50 connections (autocannon), and database round
//     trips per live call;
//  2. an idempotent replay vs a live call;
//  3. async jobs: enqueue-to-start latency and completed jobs/s with an instant model and two workers.
import { pino } from 'pino'
import { createLogger } from '../core/observability/log.ts'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import autocannon from 'autocannon'
import Koa from 'koa'
import { addCredits, createAccount, createKey } from '../core/accounts/accounts.ts'
import { buildApp } from '../core/app.ts'
import { boot } from '../core/boot.ts'
import { loadConfig } from '../core/config.ts'
import { ensureDatabaseExists, resolveDatabaseUrl } from '../core/db/database.ts'
import { startWorker } from '../core/jobs/worker.ts'
import { mockProvider } from '../test/helpers/app.ts'
import { withDatabase } from '../test/helpers/database.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 50
const JOBS = Number(process.env.BENCH_JOBS ?? 400)

const answer = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge.' }
const request = { text: 'My card was charged twice.', labels: ['billing', 'technical'] }

const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const dbName = `capapi_bench_${Date.now()}`
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), dbName)
const config = { ...loadConfig(), databaseUrl: withDatabase(server.url, dbName), rateLimits: { classify: 1e9, parse: 1e9 } }
const { services, close } = await boot(config, {
  provider: mockProvider((prompt) =>
    prompt.includes('You parse one business document')
      ? { docType: 'invoice', party: null, documentNumber: null, date: null, totalAmount: null, currency: null, lineItems: [], fields: [] }
      : answer,
  ),
  log: () => {},
  // Access lines are written (their cost is part of the pipeline) but to /dev/null, not over the report.
  logger: createLogger({ level: 'info' }, pino.destination('/dev/null')),
})

const listen = (app: Koa) =>
  new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`

const api = await listen(buildApp(services))
const bare = new Koa()
const bareBody = JSON.stringify({ ...answer, usage: { credits: 2, balanceRemaining: 100 } })
bare.use((ctx) => {
  ctx.type = 'application/json'
  ctx.body = bareBody
})
const bareServer = await listen(bare)

const account = await createAccount(services.db, { email: `bench-${Date.now()}@example.test` })
await addCredits(services.db, account.id, { credits: 1_000_000_000, reason: 'bench' })
const { key } = await createKey(services.db, account.id, { name: 'bench' })
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }

// 50 more accounts, one key each: the same load spread over many wallets instead of one wallet row.
const spreadKeys: string[] = []
for (let i = 0; i < CONNECTIONS; i++) {
  const other = await createAccount(services.db, { email: `bench-${Date.now()}-${i}@example.test` })
  await addCredits(services.db, other.id, { credits: 1_000_000_000, reason: 'bench' })
  spreadKeys.push((await createKey(services.db, other.id, { name: 'bench' })).key)
}

async function load(url: string, extra: Record<string, string> = {}, keys?: string[]) {
  let next = 0
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { ...headers, ...extra },
    body: JSON.stringify(request),
    ...(keys ? { setupClient: (client: { setHeaders(h: object): void }) => client.setHeaders({ ...headers, authorization: `Bearer ${keys[next++ % keys.length]}` }) } : {}),
  } as autocannon.Options)
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total }
}

// Warm up (JIT, key cache, pools), then measure.
await load(`${urlOf(api)}/v1/classify`)
const bareResult = await load(`${urlOf(bareServer)}/`)
const liveResult = await load(`${urlOf(api)}/v1/classify`)
const spreadResult = await load(`${urlOf(api)}/v1/classify`, {}, spreadKeys)

// Round trips per live call, measured on sequential calls with a warm key cache, once the load test's last
// in-flight requests have finished.
await new Promise((r) => setTimeout(r, 2000))
const N = 200
const before = services.db.roundTrips()
for (let i = 0; i < N; i++) await fetch(`${urlOf(api)}/v1/classify`, { method: 'POST', headers, body: JSON.stringify(request) })
const tripsPerCall = (services.db.roundTrips() - before) / N
const beforeIdem = services.db.roundTrips()
for (let i = 0; i < N; i++)
  await fetch(`${urlOf(api)}/v1/classify`, { method: 'POST', headers: { ...headers, 'idempotency-key': `rt-${i}` }, body: JSON.stringify(request) })
const tripsPerIdempotentCall = (services.db.roundTrips() - beforeIdem) / N

await fetch(`${urlOf(api)}/v1/classify`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'bench-replay' }, body: JSON.stringify(request) })
const replayResult = await load(`${urlOf(api)}/v1/classify`, { 'idempotency-key': 'bench-replay' })

// Jobs: enqueue JOBS async parse calls with no worker running, then start two workers and time them.
const jobHeaders = { ...headers }
const jobBody = JSON.stringify({ text: 'Invoice 42 from ACME, total 10.00', async: true })
let enqueued = 0
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (enqueued < JOBS) {
      enqueued++
      const res = await fetch(`${urlOf(api)}/v1/parse`, { method: 'POST', headers: jobHeaders, body: jobBody })
      if (res.status !== 202) throw new Error(`parse async: ${res.status} ${await res.text()}`)
    }
  }),
)
const started = Date.now()
const workers = [await startWorker(services, { concurrency: 4 }), await startWorker(services, { concurrency: 4 })]
for (;;) {
  const [row] = await services.db.sql(`select count(*)::int as n from jobs where status in ('queued', 'running')`)
  if (row!.n === 0) break
  await new Promise((r) => setTimeout(r, 50))
}
const elapsed = (Date.now() - started) / 1000
const [jobStats] = await services.db.sql(
  `select count(*)::int as n,
          percentile_cont(0.5) within group (order by extract(epoch from started_at - ?::timestamptz)) * 1000 as p50_wait,
          percentile_cont(0.99) within group (order by extract(epoch from started_at - ?::timestamptz)) * 1000 as p99_wait
     from jobs where status = 'succeeded'`,
  [new Date(started), new Date(started)],
)
await Promise.all(workers.map((w) => w.stop()))

// Enqueue-to-start with an idle, running worker pool: one job at a time.
const idle = [await startWorker(services, { concurrency: 4 }), await startWorker(services, { concurrency: 4 })]
const waits: number[] = []
for (let i = 0; i < 50; i++) {
  const res = await fetch(`${urlOf(api)}/v1/parse`, { method: 'POST', headers: jobHeaders, body: jobBody })
  const { jobId } = (await res.json()) as { jobId: string }
  for (;;) {
    const [row] = await services.db.sql(`select extract(epoch from started_at - created_at) * 1000 as wait from jobs where id = ? and started_at is not null`, [jobId])
    if (row) {
      waits.push(Number(row.wait))
      break
    }
    await new Promise((r) => setTimeout(r, 5))
  }
}
await Promise.all(idle.map((w) => w.stop()))
waits.sort((a, b) => a - b)
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

const f = (n: number) => (Math.round(n * 10) / 10).toLocaleString('en-US')
console.log(`
## Pipeline overhead (${CONNECTIONS} connections, ${SECONDS} s each, one run)

| target | requests/s | p50 ms | p99 ms |
|---|---:|---:|---:|
| bare Koa route, same JSON | ${f(bareResult.rps)} | ${bareResult.p50} | ${bareResult.p99} |
| live call, whole pipeline (classify, instant mock model), one account | ${f(liveResult.rps)} | ${liveResult.p50} | ${liveResult.p99} |
| the same, spread over 50 accounts | ${f(spreadResult.rps)} | ${spreadResult.p50} | ${spreadResult.p99} |
| idempotent replay of that call | ${f(replayResult.rps)} | ${replayResult.p50} | ${replayResult.p99} |

- live / bare requests/s: **${(liveResult.rps / bareResult.rps).toFixed(2)}**
- replay / live requests/s: **${(replayResult.rps / liveResult.rps).toFixed(2)}**; replay p50 ${replayResult.p50} ms vs live ${liveResult.p50} ms
- database round trips per live call (warm key cache, hold and capture included): **${tripsPerCall.toFixed(2)}**
- database round trips per live call with an Idempotency-Key: **${tripsPerIdempotentCall.toFixed(2)}**

## Async jobs (instant model, two workers of concurrency 4)

- ${jobStats!.n} queued jobs drained in ${elapsed.toFixed(2)} s: **${f(jobStats!.n / elapsed)} jobs/s**
- time from workers starting to a job starting, backlog of ${JOBS}: p50 ${f(Number(jobStats!.p50_wait))} ms, p99 ${f(Number(jobStats!.p99_wait))} ms
- enqueue-to-start with idle workers (50 jobs one at a time): **p50 ${f(pct(waits, 50))} ms, p99 ${f(pct(waits, 99))} ms**
`)

api.close()
bareServer.close()
await close()
const { default: pg } = await import('pg')
const admin = new pg.Client({ connectionString: withDatabase(server.url, 'postgres') })
await admin.connect()
await admin.query(`drop database if exists "${dbName}" with (force)`)
await admin.end()
await server.stop()
process.exit(0)
