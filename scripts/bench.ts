// `npm run bench`: what the kernel costs, read per process. Every server runs in its own process (API, bare
// Koa route, fake model over HTTP, workers, the load generator), and CPU time is read from /proc/<pid>/stat
// over each scenario: CPU ms per call is the stable figure on a shared machine, req/s and latency are not.
// PostgreSQL's CPU is the sum over the server's processes (postmaster and its children: backends, WAL
// writer …) — exact with the embedded server, which is ours alone.
//
// BENCH_PROFILE=<dir> writes CPU profiles of the API and worker processes (node --cpu-prof).
// BENCH_SECONDS (default 5) per load run, BENCH_JOBS (default 2000), BENCH_SLOW_CALLS (default 10000; 0 skips),
// BENCH_ONLY=live,jobs,… runs a subset. Scenarios: bare, dry, live, scoped, peer, replay, spread, jobs, slow, scaleout,
// accept, alerts, batches (scripts/bench/batches.ts), cache, cpu (scripts/bench/cpu.ts; BENCH_AB=dir,… the checkouts it
// compares this API with, `.?NAME=value` this checkout with other environment). scoped: the same live call with a key of permissions all and with a scoped key (call + an allowlist).
// peer: the live call against Portkey's gateway on the same fake model (scripts/bench/peer.ts); accept: an async
// acceptance against a sync call of the same capability; alerts: PostgreSQL CPU per charge with and without balance
// thresholds, and the latency of balance.low from the crossing to a receiver; cache: a result-cache miss and hit
// against the same call without the cache (scripts/bench/cache.ts).
// BENCH_JOBS_BASELINES=dir,dir… runs the jobs scenario with workers from each of those checkouts first (`dir?WORKER_PREFETCH=…`
// with other worker settings); BENCH_JOBS_ROUNDS=n repeats it n times, taking turns, and reports the medians.
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { addCredits, createAccount } from '../core/accounts/accounts.ts'
import { createKey } from '../core/accounts/keys.ts'
import { type Caller } from '../core/http/caller.ts'
import { requireCapability } from '../core/http/permissions.ts'
import { loadCapabilities } from '../core/run/registry.ts'
import { CAPABILITIES_ROOT } from '../core/capability-folders.ts'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl } from '../core/db/database.ts'
import { withDatabase } from '../devkit/database.ts'
import { benchBatches } from './bench/batches.ts'
import { benchCache } from './bench/cache.ts'
import { benchCpu } from './bench/cpu.ts'
import { benchJobs } from './bench/jobs.ts'
import { firstLine, startFlags } from './bench/children.ts'
import { portkeyHeaders, PORTKEY_VERSION, startPortkey } from './bench/peer.ts'
import { cpuMs, median, pgCpu, pgDelta, ppidOf } from './bench/proc.ts'
import { benchServers, boots, child, children, runLoad, startModel, stop, type LoadResult } from './bench/servers.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = 50
const JOBS = Number(process.env.BENCH_JOBS ?? 2000)
const SLOW_CALLS = Number(process.env.BENCH_SLOW_CALLS ?? 10_000)
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null
const wants = (s: string) => !ONLY || ONLY.has(s)
const PRICE = 2 // classify
const NO_CACHE = { 'service-cache': 'no-store' }
const request = JSON.stringify({ text: 'My card was charged twice.', labels: ['billing', 'technical'] })

// ---------- CPU from /proc ----------
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m?.[1] ?? 0) / 1024
}

interface Meter {
  stop(): Record<string, number>
}
function meter(procs: Record<string, ChildProcess[]>): Meter {
  const before = Object.fromEntries(Object.entries(procs).map(([k, cs]) => [k, cs.reduce((s, c) => s + cpuMs(c.pid!), 0)]))
  const pgBefore = pgCpu(postmaster)
  return {
    stop: () => ({
      ...Object.fromEntries(Object.entries(procs).map(([k, cs]) => [k, cs.reduce((s, c) => s + cpuMs(c.pid!), 0) - before[k]!])),
      postgres: pgDelta(pgBefore, pgCpu(postmaster)),
    }),
  }
}

// ---------- load ----------
const load = (opts: Record<string, unknown>) =>
  runLoad({ method: 'POST', body: request, connections: CONNECTIONS, duration: SECONDS, ...opts })
const headersFor = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  ...extra,
})

// ---------- setup ----------
const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const dbName = `capapi_bench_${Date.now()}`
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), dbName)
const url = withDatabase(server.url, dbName)
await migrate(url)
const db = await openDatabase(url, 4)
const [self] = await db.sql<{ pid: number }>('select pg_backend_pid() as pid')
const backend = self!.pid
const postmaster = ppidOf(backend)

async function fundedKeys(n: number): Promise<{ key: string; accountId: string }[]> {
  const out = []
  for (let i = 0; i < n; i++) {
    const a = await createAccount(db, { email: `bench-${Date.now()}-${out.length}-${Math.random()}@example.test` }, new Date())
    await addCredits(db, a.id, { credits: 1_000_000_000, reason: 'bench' }, new Date())
    out.push({ key: (await createKey(db, a.id, { name: 'bench' })).key, accountId: a.id })
  }
  return out
}
// What this machine's disk makes of a durable commit right now: every money statement waits for one.
await db.sql('create table bench_commit (n int)')
let t0 = performance.now()
for (let i = 0; i < 50; i++) await db.sql('select 1')
const selectMs = (performance.now() - t0) / 50
t0 = performance.now()
for (let i = 0; i < 50; i++) await db.sql('insert into bench_commit values (1)')
const commitMs = (performance.now() - t0) / 50
await db.sql('drop table bench_commit')

const [hot] = await fundedKeys(1)
const spread = await fundedKeys(CONNECTIONS)

mkdirSync('.bench', { recursive: true })
const MODEL_SAMPLE = '.bench/model-request.json' // what the API sends the model for a classify call (peer scenario)
const { startApi, startWorkerProcess } = benchServers(url)

const model = await startModel(0, MODEL_SAMPLE)
const bareProc = child('scripts/bench/bare.ts', [])
const bareUrl = `http://127.0.0.1:${await firstLine(bareProc)}`
const api = await startApi(model.baseURL)
// A/B in the same run, each against its own API process on the same database and model:
//  - BENCH_BASELINE=<dir>: an API started from another checkout (e.g. `git archive <commit>`, node_modules linked),
//    the way that checkout's `npm start` runs it (with the tsx loader before Node 24 stripped the types itself);
//  - always: this API under the tsx loader, as `npm start` ran it before Node stripped the types itself.
const variants = [
  ...(process.env.BENCH_BASELINE
    ? [
        {
          label: `baseline ${process.env.BENCH_BASELINE}`,
          api: await startApi(model.baseURL, {}, { cwd: process.env.BENCH_BASELINE }),
        },
      ]
    : []),
  {
    label: 'tsx loader',
    api: await startApi(model.baseURL, {}, { nodeArgs: ['--import', 'tsx', ...startFlags('.', 'start:api')] }),
  },
]

// ---------- scenarios ----------
interface Row {
  name: string
  r: LoadResult
  cpu: Record<string, number>
  note?: string
}
const rows: Row[] = []
async function measured(name: string, target: string, opts: Record<string, unknown>, procs: Record<string, ChildProcess[]>): Promise<Row> {
  await load({ ...opts, url: target, duration: 2 }) // warm-up: JIT, key cache, pools, prepared statements
  const m = meter(procs)
  const r = await load({ ...opts, url: target })
  const cpu = m.stop()
  if (r.errors || r.non2xx) throw new Error(`${name}: ${r.non2xx} non-2xx ${JSON.stringify(r.statuses)}, ${r.errors} errors`)
  return { name, r, cpu }
}
async function scenario(name: string, target: string, opts: Record<string, unknown>, procs: Record<string, ChildProcess[]>, note?: string) {
  const row = await measured(name, target, opts, procs)
  rows.push({ ...row, ...(note ? { note } : {}) })
  return row.r
}
const liveProcs = { api: [api.proc], model: [model.proc] }
const ledger = async (accountIds: string[]) => {
  const [row] = await db.sql(
    `select coalesce(-sum(amount), 0)::bigint as charged, count(*)::int as n from ledger where kind = 'charge' and account_id = any(?::uuid[])`,
    [`{${accountIds.join(',')}}`],
  )
  return { charged: Number(row!.charged), n: row!.n as number }
}
const exactness: string[] = []
/** Waits (up to 30 s) until these accounts have no open sync hold: calls a timed run left in flight finish. */
async function settled(accountIds: string[]) {
  for (let waited = 0; waited < 30_000; waited += 200) {
    const [row] = await db.sql(
      `select count(*)::int as n from holds where state = 'open' and expires_at is not null and account_id = any(?::uuid[])`,
      [`{${accountIds.join(',')}}`],
    )
    if (row!.n === 0) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error('calls still in flight after 30 s')
}

if (wants('bare'))
  await scenario('bare Koa + router + bodyparser, same JSON', `${bareUrl}/v1/classify`, { headers: headersFor('x') }, { api: [bareProc] })
if (wants('dry')) {
  await scenario('dry run /v1/classify', `${api.url}/v1/classify`, { headers: headersFor(hot!.key, { 'service-dry-run': '1' }) }, liveProcs)
  for (const v of variants)
    await scenario(
      `dry run, ${v.label}`,
      `${v.api.url}/v1/classify`,
      { headers: headersFor(hot!.key, { 'service-dry-run': '1' }) },
      { api: [v.api.proc], model: [model.proc] },
    )
}
if (wants('live')) {
  await scenario(
    'live /v1/classify, fake model over HTTP, one hot account',
    `${api.url}/v1/classify`,
    { headers: headersFor(hot!.key) },
    liveProcs,
  )
  // Exactness under concurrency: a fixed number of calls, every answer awaited, then the ledger.
  await settled([hot!.accountId])
  const b = await ledger([hot!.accountId])
  // no-store: the same body again would be a result-cache hit, charged the hit price (C20), not PRICE.
  const x = await load({ url: `${api.url}/v1/classify`, amount: 500, duration: undefined, headers: headersFor(hot!.key, NO_CACHE) })
  const a = await ledger([hot!.accountId])
  const ok = x.statuses['200'] ?? 0
  exactness.push(
    `one hot account, 500 calls on ${CONNECTIONS} connections: ${ok} × 200, ${a.n - b.n} charges, ${a.charged - b.charged} credits: ${ok === 500 && a.n - b.n === ok && a.charged - b.charged === PRICE * ok ? 'exact' : 'NOT EXACT'}`,
  )
  for (const v of variants)
    await scenario(
      `live, ${v.label}`,
      `${v.api.url}/v1/classify`,
      { headers: headersFor(hot!.key) },
      { api: [v.api.proc], model: [model.proc] },
    )
}
// The scoped-key check (C18): the same live call with the hot account's `all` key and with a scoped key (`call`, an
// allowlist of every capability but one), taking turns; and the check alone, timed in this process.
const scopedLines: string[] = []
if (wants('scoped')) {
  const names = (await loadCapabilities(CAPABILITIES_ROOT)).map((c) => c.name)
  const allowlist = names.filter((n) => n !== 'research')
  const scoped = await createKey(db, hot!.accountId, { name: 'bench scoped', permissions: 'call', capabilities: allowlist })
  // Both at one fixed rate (CPU per call falls as the rate rises), in alternating order (the machine's load drifts).
  const ROUNDS = 4
  const RATE = 100
  const sum = { all: { api: 0, n: 0 }, scoped: { api: 0, n: 0 } }
  const keys = [
    ['all', hot!.key],
    ['scoped', scoped.key],
  ] as const
  for (let round = 0; round < ROUNDS; round++) {
    for (const [which, key] of round % 2 ? [...keys].reverse() : keys) {
      const row = await measured(
        `live, ${which} key`,
        `${api.url}/v1/classify`,
        { connections: 10, overallRate: RATE, headers: headersFor(key) },
        liveProcs,
      )
      sum[which].api += row.cpu.api!
      sum[which].n += row.r.requests
    }
  }
  const caller: Caller = {
    keyId: scoped.id,
    accountId: hot!.accountId,
    mode: 'live',
    permissions: 'call',
    capabilities: new Set(allowlist),
  }
  const N = 1_000_000
  const t = process.cpuUsage()
  for (let i = 0; i < N; i++) requireCapability(caller, 'classify')
  const used = process.cpuUsage(t)
  const checkNs = ((used.user + used.system) * 1000) / N
  const allMs = sum.all.api / sum.all.n
  const scopedMs = sum.scoped.api / sum.scoped.n
  scopedLines.push(
    `${ROUNDS} rounds of ${SECONDS} s each per key at ${RATE} calls/s (10 connections), taking turns in alternating order, one hot account; the scoped key allows ${allowlist.length} capabilities`,
    '',
    '| key | API CPU ms/call | calls |',
    '|---|---:|---:|',
    `| permissions all, no allowlist | ${allMs.toFixed(3)} | ${sum.all.n} |`,
    `| permissions call, ${allowlist.length}-name allowlist | ${scopedMs.toFixed(3)} | ${sum.scoped.n} |`,
    `| **scoped / all** | **${(scopedMs / allMs).toFixed(3)}** | |`,
    '',
    `- the check alone (requireCapability, ${N.toLocaleString('en-US')} times in this process): ${checkNs.toFixed(1)} ns CPU per call, ` +
      `${((checkNs / 1e6 / allMs) * 100).toFixed(4)} % of the API's CPU per live call; no query (the scope comes with the cached key)`,
  )
}
// Alerts (C17): PostgreSQL CPU per live charge on an account without alerts and on one with balance thresholds
// (never crossed here: the trigger runs and decides nothing), taking turns at a fixed rate; then the latency of a
// balance.low from the crossing (the event's created_at, the database's clock at the crossing charge's hold) to a
// receiver on loopback, through a worker process, over sequential crossings of fresh accounts.
const alertLines: string[] = []
if (wants('alerts')) {
  const [plain, alerted] = await fundedKeys(2)
  await db.sql(`update accounts set balance_thresholds = '{2000000000, 1000}' where id = ?`, [alerted!.accountId])
  const ROUNDS = 4
  const RATE = 50
  const sum = { without: { pg: 0, n: 0 }, with: { pg: 0, n: 0 } }
  const keys = [
    ['without', plain!.key],
    ['with', alerted!.key],
  ] as const
  for (let round = 0; round < ROUNDS; round++) {
    for (const [which, key] of round % 2 ? [...keys].reverse() : keys) {
      const row = await measured(
        `live, ${which} alerts`,
        `${api.url}/v1/classify`,
        { connections: 10, overallRate: RATE, headers: headersFor(key) },
        liveProcs,
      )
      sum[which].pg += row.cpu.postgres!
      sum[which].n += row.r.requests
    }
  }
  const withoutMs = sum.without.pg / sum.without.n
  const withMs = sum.with.pg / sum.with.n
  // The trigger alone: a hold taken and released (two updates of the available credits), 100 pairs a statement and
  // transaction (one transaction piling up versions of one row would time its own row chain), PostgreSQL's CPU read
  // around each account's run, taking turns, best of two.
  const UPDATES = 20_000
  const updateCost: Record<string, number> = {}
  for (const [which, accountId] of [
    ['without', plain!.accountId],
    ['with', alerted!.accountId],
    ['without', plain!.accountId],
    ['with', alerted!.accountId],
  ] as const) {
    const before = pgCpu(postmaster)
    for (let i = 0; i < UPDATES / 200; i++)
      await db.sql(
        `do $$ begin for i in 1..100 loop
           update accounts set reserved = reserved + 2 where id = '${accountId}';
           update accounts set reserved = reserved - 2 where id = '${accountId}';
         end loop; end $$`,
      )
    updateCost[which] = Math.min(updateCost[which] ?? Infinity, (pgDelta(before, pgCpu(postmaster)) * 1000) / UPDATES)
  }
  const [{ n: events } = { n: 0 }] = await db.sql<{ n: number }>(`select count(*)::int as n from events where account_id = ?`, [
    alerted!.accountId,
  ])

  const hits = new Map<string, number>()
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const event = JSON.parse(body) as { id: string; createdAt: string }
      if (!hits.has(event.id)) hits.set(event.id, Date.now() - Date.parse(event.createdAt))
      res.writeHead(200).end()
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  const alertApi = await startApi(model.baseURL, { CALLBACKS_ALLOW_PRIVATE: 'true' })
  const worker = await startWorkerProcess(model.baseURL, { CALLBACKS_ALLOW_PRIVATE: 'true' })
  const CROSSINGS = 100
  for (let i = 0; i < CROSSINGS; i++) {
    const a = await createAccount(db, { email: `bench-alert-${Date.now()}-${i}@example.test` }, new Date())
    await addCredits(db, a.id, { credits: 10, reason: 'bench' }, new Date())
    const { key } = await createKey(db, a.id, { name: 'bench' })
    const post = (path: string, body: unknown, method = 'POST') =>
      fetch(`${alertApi.url}${path}`, { method, headers: headersFor(key), body: JSON.stringify(body) })
    await post('/v1/webhook-endpoints', { url: hookUrl, events: ['balance.*'] })
    await post('/v1/alerts', { balanceThresholds: [9] }, 'PUT')
    const before = hits.size
    await post('/v1/classify', JSON.parse(request))
    for (let waited = 0; hits.size === before && waited < 10_000; waited += 2) await new Promise((r) => setTimeout(r, 2))
  }
  const latencies = [...hits.values()].sort((x, y) => x - y)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]
  receiver.close()
  await stop(worker)
  alertLines.push(
    `${ROUNDS} rounds of ${SECONDS} s each at ${RATE} calls/s (10 connections), taking turns in alternating order; the alerted account has two thresholds it never crosses (${events} events written)`,
    '',
    '| account | PostgreSQL CPU ms/call | calls |',
    '|---|---:|---:|',
    `| no alerts configured | ${withoutMs.toFixed(3)} | ${sum.without.n} |`,
    `| balance thresholds [2e9, 1000] | ${withMs.toFixed(3)} | ${sum.with.n} |`,
    `| **with / without** | **${(withMs / withoutMs).toFixed(3)}** | |`,
    '',
    `- the trigger alone: ${UPDATES.toLocaleString('en-US')} updates of the available credits (a hold taken and released) 100 pairs a statement, best of two: ` +
      `${updateCost.without!.toFixed(1)} µs PostgreSQL CPU per update without alerts, ${updateCost.with!.toFixed(1)} µs with two thresholds ` +
      `(+${(updateCost.with! - updateCost.without!).toFixed(1)} µs; a live charge makes one such update that the trigger reads)`,
    `- alert latency, crossing charge (the event's created_at) to the receiver, ${latencies.length} of ${CROSSINGS} sequential crossings through one worker process: ` +
      `p50 **${pct(50)} ms**, p99 **${pct(99)} ms**, max ${latencies.at(-1)} ms`,
  )
}
// The peer (issue 32): the same short JSON call at 20 connections, through this API (one hot account) and through
// Portkey's gateway to the same fake model, taking turns so a burst of load elsewhere hits both alike.
const peerLines: string[] = []
if (wants('peer')) {
  const PEER_CONNECTIONS = 20
  const ROUNDS = 3
  const res = await fetch(`${api.url}/v1/classify`, { method: 'POST', headers: headersFor(hot!.key, NO_CACHE), body: request })
  if (res.status !== 200) throw new Error(`peer: live call ${res.status}`)
  await res.arrayBuffer()
  const gateway = await startPortkey((c) => children.push(c))
  const modelBody = readFileSync(MODEL_SAMPLE, 'utf8') // exactly what the API sent the model
  // Both warmed up alike first: a process's CPU per call keeps falling for its first ~20 s of traffic (V8's
  // optimising tiers), and this scenario may run first after the API's start (measured's 2 s warm-up is not enough).
  const warmUp = { connections: PEER_CONNECTIONS, duration: Number(process.env.BENCH_PEER_WARMUP ?? 20) }
  await load({ ...warmUp, url: `${api.url}/v1/classify`, headers: headersFor(hot!.key, NO_CACHE) })
  await load({ ...warmUp, url: `${gateway.url}/v1/chat/completions`, body: modelBody, headers: portkeyHeaders(model.baseURL) })
  const sum = { live: { api: 0, postgres: 0, model: 0, n: 0, p99: 0 }, peer: { portkey: 0, postgres: 0, model: 0, n: 0, p99: 0 } }
  for (let round = 0; round < ROUNDS; round++) {
    const live = await measured(
      'live',
      `${api.url}/v1/classify`,
      { connections: PEER_CONNECTIONS, headers: headersFor(hot!.key, NO_CACHE) },
      liveProcs,
    )
    sum.live.api += live.cpu.api!
    sum.live.postgres += live.cpu.postgres!
    sum.live.model += live.cpu.model!
    sum.live.n += live.r.requests
    sum.live.p99 = Math.max(sum.live.p99, live.r.p99)
    const peer = await measured(
      'portkey',
      `${gateway.url}/v1/chat/completions`,
      { connections: PEER_CONNECTIONS, body: modelBody, headers: portkeyHeaders(model.baseURL) },
      { portkey: [gateway.proc], model: [model.proc] },
    )
    sum.peer.portkey += peer.cpu.portkey!
    sum.peer.postgres += peer.cpu.postgres!
    sum.peer.model += peer.cpu.model!
    sum.peer.n += peer.r.requests
    sum.peer.p99 = Math.max(sum.peer.p99, peer.r.p99)
  }
  // The gateway again at the rate the live calls reached: per-call CPU falls as the rate rises (more work per
  // wake-up), so this row separates the cost of a hop from that of a faster hop.
  const liveRate = Math.max(1, Math.round(sum.live.n / (ROUNDS * SECONDS)))
  const paced = await measured(
    'portkey, paced',
    `${gateway.url}/v1/chat/completions`,
    { connections: PEER_CONNECTIONS, overallRate: liveRate, body: modelBody, headers: portkeyHeaders(model.baseURL) },
    { portkey: [gateway.proc], model: [model.proc] },
  )
  await stop(gateway.proc)
  const ms = (x: number, n: number) => (x / n).toFixed(3)
  const apiPg = (sum.live.api + sum.live.postgres) / sum.live.n
  const portkey = sum.peer.portkey / sum.peer.n
  peerLines.push(
    `${ROUNDS} rounds of ${SECONDS} s each, taking turns, ${PEER_CONNECTIONS} connections, one hot account; the gateway is sent the body the API sends the model (${Buffer.byteLength(modelBody)} bytes)`,
    '',
    '| process | CPU ms/call | calls | worst p99 ms |',
    '|---|---:|---:|---:|',
    `| API (live /v1/classify, metered) | ${ms(sum.live.api, sum.live.n)} | ${sum.live.n} | ${sum.live.p99} |`,
    `| PostgreSQL (during the live calls) | ${ms(sum.live.postgres, sum.live.n)} | | |`,
    `| Portkey gateway ${PORTKEY_VERSION} (a proxy, no metering) | ${ms(sum.peer.portkey, sum.peer.n)} | ${sum.peer.n} | ${sum.peer.p99} |`,
    `| PostgreSQL (during the gateway's calls: idle) | ${ms(sum.peer.postgres, sum.peer.n)} | | |`,
    `| Portkey at the live calls' rate (${liveRate}/s, one run) | ${ms(paced.cpu.portkey!, paced.r.requests)} | ${paced.r.requests} | ${paced.r.p99} |`,
    `| fake model, live / gateway | ${ms(sum.live.model, sum.live.n)} / ${ms(sum.peer.model, sum.peer.n)} | | |`,
    `| **(API + PostgreSQL) / Portkey** | **${(apiPg / portkey).toFixed(2)}** | | |`,
    `| (API + PostgreSQL) / Portkey at the same rate | ${(apiPg / (paced.cpu.portkey! / paced.r.requests)).toFixed(2)} | | |`,
  )
}
if (wants('spread')) {
  await scenario(
    `live, spread over ${CONNECTIONS} accounts`,
    `${api.url}/v1/classify`,
    { headers: headersFor(hot!.key), keys: spread.map((s) => s.key) },
    liveProcs,
  )
}
if (wants('replay')) {
  await fetch(`${api.url}/v1/classify`, {
    method: 'POST',
    headers: headersFor(hot!.key, { 'idempotency-key': 'bench-replay' }),
    body: request,
  })
  await scenario(
    'idempotent replay',
    `${api.url}/v1/classify`,
    { headers: headersFor(hot!.key, { 'idempotency-key': 'bench-replay' }) },
    liveProcs,
  )
}

// Statements per live call: committed transactions of our database, from PostgreSQL's own counters
// (sequential calls, warm key cache; every statement outside tx() is its own transaction).
async function xacts(): Promise<number> {
  await new Promise((r) => setTimeout(r, 11_000)) // an idle backend flushes its counters within 10 s
  const [row] = await db.sql(
    `select pg_stat_clear_snapshot(), xact_commit::bigint as n from pg_stat_database where datname = current_database()`,
  )
  return Number(row!.n)
}
let tripsPerCall = NaN
const sequential: string[] = []
if (wants('live')) {
  const N = 300
  // One call at a time: no queueing anywhere, so CPU per call is the work of the call itself. The APIs take
  // turns in rounds of 30 calls, so a burst of load from elsewhere on the machine hits them all alike.
  const targets = [{ label: 'this API', api }, ...variants]
  const totals = targets.map(() => ({ api: 0, postgres: 0, model: 0, ms: 0 }))
  for (let round = 0; round < N / 30; round++) {
    for (const [k, target] of targets.entries()) {
      const m = meter({ api: [target.api.proc], model: [model.proc] })
      const t0 = performance.now()
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`${target.api.url}/v1/classify`, { method: 'POST', headers: headersFor(hot!.key), body: request })
        if (res.status !== 200) throw new Error(`sequential live call: ${res.status}`)
        await res.arrayBuffer()
      }
      const cpu = m.stop()
      const t = totals[k]!
      t.ms += performance.now() - t0
      t.api += cpu.api!
      t.postgres += cpu.postgres!
      t.model += cpu.model!
    }
  }
  for (const [k, t] of totals.entries())
    sequential.push(
      `| ${targets[k]!.label} | ${(t.api / N).toFixed(2)} | ${(t.postgres / N).toFixed(2)} | ${(t.model / N).toFixed(2)} | ${(t.ms / N).toFixed(2)} |`,
    )
  const x0 = await xacts()
  for (let i = 0; i < N; i++)
    await (await fetch(`${api.url}/v1/classify`, { method: 'POST', headers: headersFor(hot!.key), body: request })).arrayBuffer()
  tripsPerCall = ((await xacts()) - x0 - 1) / N // -1: the reading itself
}

// ---------- the result cache (scripts/bench/cache.ts) ----------
const cacheLines = wants('cache')
  ? await benchCache({ db, url: api.url, procs: liveProcs, headers: (extra) => headersFor(hot!.key, extra), measured, seconds: SECONDS })
  : []

// ---------- the API's CPU per live call and what each feature adds to it (scripts/bench/cpu.ts) ----------
const cpuLines: string[] = []
if (wants('cpu')) {
  const names = (await loadCapabilities(CAPABILITIES_ROOT)).map((c) => c.name)
  const scoped = await createKey(db, hot!.accountId, {
    name: 'bench cpu scoped',
    permissions: 'call',
    capabilities: names.filter((n) => n !== 'research'),
  })
  const [alerted] = await fundedKeys(1)
  await db.sql(`update accounts set balance_thresholds = '{2000000000, 1000}' where id = ?`, [alerted!.accountId])
  // BENCH_AB=dir,dir?NAME=value&…: other checkouts, or this one ('.') with other environment (NODE_OPTIONS …).
  const apis = [{ label: 'this API', ...api }]
  for (const entry of (process.env.BENCH_AB ?? '').split(',').filter(Boolean)) {
    const [dir, env = ''] = entry.split('?')
    const extra = Object.fromEntries(new URLSearchParams(env))
    apis.push({ label: entry, ...(await startApi(model.baseURL, extra, dir === '.' ? {} : { cwd: dir! })) })
  }
  cpuLines.push(
    ...(await benchCpu({
      apis,
      model: model.proc,
      measured,
      headers: headersFor,
      keys: { all: hot!.key, scoped: scoped.key, alerted: alerted!.key },
      seconds: SECONDS,
    })),
  )
  await Promise.all(apis.slice(1).map((a) => stop(a.proc)))
}

// ---------- jobs (scripts/bench/jobs.ts) ----------
const jobLines = wants('jobs')
  ? await benchJobs({
      db,
      apiUrl: api.url,
      api: api.proc,
      model: model.proc,
      jobs: JOBS,
      accounts: spread,
      startWorkers: (cwd, env = {}) => Promise.all([0, 1].map(() => startWorkerProcess(model.baseURL, env, cwd ? { cwd } : {}))),
      stop,
      meter,
      ledger,
      xacts,
    })
  : []

// ---------- batches (scripts/bench/batches.ts) ----------
const batchLines = wants('batches')
  ? await benchBatches({
      db,
      apiUrl: api.url,
      api: api.proc,
      accounts: spread.slice(0, 3),
      startWorkers: () => Promise.all([0, 1].map(() => startWorkerProcess(model.baseURL))),
      stop,
      meter,
      load,
    })
  : []

// ---------- 10,000 concurrent calls to a model that answers after 5 s ----------
const slowLines: string[] = []
if (wants('slow') && SLOW_CALLS > 0) {
  const slowModel = await startModel(5000)
  const accounts = spread.slice(0, 10) // the scale-out uses the other 40
  // This API, then (BENCH_BASELINE) the baseline checkout's, one after the other on the same model.
  const targets = [{ label: 'this API', cwd: undefined as string | undefined }]
  if (process.env.BENCH_BASELINE) targets.push({ label: `baseline ${process.env.BENCH_BASELINE}`, cwd: process.env.BENCH_BASELINE })
  for (const target of targets) {
    const slowApi = await startApi(slowModel.baseURL, {}, target.cwd ? { cwd: target.cwd } : {})
    await settled(accounts.map((a) => a.accountId))
    const before = await ledger(accounts.map((a) => a.accountId))
    const m = meter({ api: [slowApi.proc], model: [slowModel.proc] })
    const started = Date.now()
    const r = await load({
      url: `${slowApi.url}/v1/classify`,
      connections: SLOW_CALLS,
      amount: SLOW_CALLS,
      duration: undefined,
      timeout: 120,
      headers: headersFor(hot!.key, NO_CACHE), // every call a 5-s model call of its own, none following an identical one
      keys: accounts.map((a) => a.key),
    })
    const cpu = m.stop()
    const after = await ledger(accounts.map((a) => a.accountId))
    const ok = r.statuses['200'] ?? 0
    slowLines.push(
      `- ${target.label}: ${SLOW_CALLS} calls at once (${SLOW_CALLS} connections), model answers after 5 s: ${ok} × 200, statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors, ${r.timeouts} timeouts, all done in ${((Date.now() - started) / 1000).toFixed(1)} s; p50 ${r.p50} ms, p99 ${r.p99} ms`,
      `  - charged ${after.charged - before.charged} credits in ${after.n - before.n} charges for ${ok} successful calls: ${after.charged - before.charged === PRICE * ok && after.n - before.n === ok ? 'exact' : 'NOT EXACT'}`,
      `  - API peak RSS **${peakRssMiB(slowApi.proc.pid!).toFixed(0)} MiB**; CPU per call: API ${(cpu.api! / SLOW_CALLS).toFixed(2)} ms, PostgreSQL ${(cpu.postgres! / SLOW_CALLS).toFixed(2)} ms`,
    )
    await stop(slowApi.proc)
  }
  await stop(slowModel.proc)
}

// ---------- scale-out: two API processes and two workers on one PostgreSQL and Redis ----------
const scaleLines: string[] = []
if (wants('scaleout')) {
  const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const LIMIT = 300
  const shared = { REDIS_URL: redis, RATE_LIMITS: JSON.stringify({ classify: 1e9, parse: 1e9, sentiment: LIMIT }) }
  const apis = [await startApi(model.baseURL, shared), await startApi(model.baseURL, shared)]
  const workers = [await startWorkerProcess(model.baseURL, shared), await startWorkerProcess(model.baseURL, shared)]
  const accounts = spread.slice(10, 50)
  await settled(accounts.map((a) => a.accountId))
  const before = await ledger(accounts.map((a) => a.accountId))
  const m = meter({ api: apis.map((a) => a.proc), model: [model.proc] })
  // A fixed number of calls per API, every answer awaited, so the ledger can be compared with the answers.
  const rs = await Promise.all(
    apis.map((a, i) =>
      load({
        url: `${a.url}/v1/classify`,
        connections: CONNECTIONS / 2,
        amount: Number(process.env.BENCH_SCALEOUT_CALLS ?? 1000),
        duration: undefined,
        headers: headersFor(hot!.key),
        keys: accounts.filter((_, j) => j % 2 === i).map((x) => x.key),
      }),
    ),
  )
  const cpu = m.stop()
  const after = await ledger(accounts.map((a) => a.accountId))
  const ok = rs.reduce((s, r) => s + (r.statuses['200'] ?? 0), 0)
  const total = rs.reduce((s, r) => s + r.requests, 0)
  scaleLines.push(
    `- live calls through both APIs (25 connections each, 40 accounts): **${rs.reduce((s, r) => s + r.rps, 0).toFixed(0)} req/s** together (p99 ${Math.max(...rs.map((r) => r.p99))} ms); CPU per call: APIs ${(cpu.api! / total).toFixed(2)} ms, PostgreSQL ${(cpu.postgres! / total).toFixed(2)} ms`,
    `- charged ${after.charged - before.charged} credits in ${after.n - before.n} charges for ${ok} successful calls: ${after.charged - before.charged === PRICE * ok && after.n - before.n === ok ? 'exact' : 'NOT EXACT'}`,
  )
  // One key, a limit of LIMIT calls a minute, dry runs (they pass the throttle) spread over both APIs.
  const rl = await Promise.all(
    apis.map((a) =>
      load({
        url: `${a.url}/v1/sentiment`,
        connections: 10,
        amount: LIMIT,
        duration: undefined,
        body: JSON.stringify({ text: 'fine' }),
        headers: headersFor(spread[0]!.key, { 'service-dry-run': '1' }),
      }),
    ),
  )
  const passed = rl.reduce((s, r) => s + (r.statuses['200'] ?? 0), 0)
  const limited = rl.reduce((s, r) => s + (r.statuses['429'] ?? 0), 0)
  scaleLines.push(
    `- rate limit ${LIMIT}/min on one key, ${2 * LIMIT} dry runs split over both APIs: ${passed} passed, ${limited} × 429: ${passed === LIMIT ? 'shared' : 'NOT SHARED'}`,
  )
  await Promise.all([...apis.map((a) => stop(a.proc)), ...workers.map(stop)])
}

// ---------- async acceptance against a sync call of the same capability (issue 32) ----------
// Last: the accepted jobs stay queued (no worker runs here) and go with the database.
const acceptLines: string[] = []
if (wants('accept')) {
  const [owner] = await fundedKeys(1)
  const text = 'Invoice 42 from ACME, total 10.00'
  const opts = { connections: 20, headers: headersFor(owner!.key) }
  // This API, and (BENCH_BASELINE) the baseline's on the same database; sync and async take turns, 3 rounds.
  const targets = [{ label: 'this API', api }, ...variants.filter((v) => v.label.startsWith('baseline'))]
  acceptLines.push(
    '| /v1/parse, 20 connections, 3 rounds of each, taking turns | CPU ms/call API | CPU ms/call PostgreSQL | API + PostgreSQL | calls |',
    '|---|---:|---:|---:|---:|',
  )
  for (const target of targets) {
    const runs = { sync: { api: 0, postgres: 0, n: 0 }, async: { api: 0, postgres: 0, n: 0 } }
    for (let round = 0; round < 3; round++)
      for (const kind of ['sync', 'async'] as const) {
        const body = JSON.stringify(kind === 'async' ? { text, async: true } : { text })
        const row = await measured(kind, `${target.api.url}/v1/parse`, { ...opts, body }, { api: [target.api.proc], model: [model.proc] })
        runs[kind].api += row.cpu.api!
        runs[kind].postgres += row.cpu.postgres!
        runs[kind].n += row.r.requests
      }
    const per = (k: 'sync' | 'async', f: 'api' | 'postgres') => runs[k][f] / runs[k].n
    acceptLines.push(
      ...(['sync', 'async'] as const).map(
        (k) =>
          `| ${target.label}: ${k === 'sync' ? 'sync live call (200)' : 'async acceptance (202, job queued)'} | ${per(k, 'api').toFixed(3)} | ${per(k, 'postgres').toFixed(3)} | **${(per(k, 'api') + per(k, 'postgres')).toFixed(3)}** | ${runs[k].n} |`,
      ),
    )
  }
}

// ---------- report ----------
const bare = rows.find((r) => r.name.startsWith('bare'))
const f = (n: number) => (Math.round(n * 10) / 10).toLocaleString('en-US')
const per = (row: Row, k: string) => (row.cpu[k] === undefined ? '–' : (row.cpu[k] / row.r.requests).toFixed(2))
console.log(`
## Per scenario (${CONNECTIONS} connections, ${SECONDS} s each after a 2 s warm-up; load generator in its own process)

| scenario | CPU ms/call API | CPU ms/call PostgreSQL | CPU ms/call model | req/s | × bare | p50 ms | p99 ms |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows
  .map(
    (row) =>
      `| ${row.name} | ${per(row, 'api')} | ${per(row, 'postgres')} | ${per(row, 'model')} | ${f(row.r.rps)} | ${bare ? (row.r.rps / bare.r.rps).toFixed(2) : '–'} | ${row.r.p50} | ${row.r.p99} |`,
  )
  .join('\n')}

Live calls one at a time (${sequential.length ? 300 : 0} each, no concurrency: the steadiest CPU figure):

| API | CPU ms/call API | CPU ms/call PostgreSQL | CPU ms/call model | ms per call |
|---|---:|---:|---:|---:|
${sequential.join('\n')}

${[false, true]
  .map((tsx) => boots.filter((b) => b.tsx === tsx))
  .filter((bs) => bs.length)
  .map(
    (bs) =>
      `- API process start to listening (\`node ${bs[0]!.tsx ? '--import tsx ' : ''}core/server.ts --api\`, ${bs.length} starts): median ${median(bs.map((b) => b.wallMs)).toFixed(0)} ms wall, ${median(bs.map((b) => b.cpuMs)).toFixed(0)} ms CPU`,
  )
  .join('\n')}
- durable commit on this machine during the run: ${commitMs.toFixed(2)} ms (a \`select 1\` round trip: ${selectMs.toFixed(2)} ms)
- statements (= round trips) per live call, from pg_stat_database, sequential calls, warm key cache: **${tripsPerCall.toFixed(2)}**
${exactness.map((l) => `- ${l}`).join('\n')}

## Scoped keys: the permission check per live call
${scopedLines.join('\n')}

## Alerts: the outbox's cost per charge and the alert latency
${alertLines.join('\n')}

## The peer: Portkey's gateway on the same fake model
${peerLines.join('\n')}

## Async acceptance against a sync call
${acceptLines.join('\n')}

## The result cache: a miss and a hit against the same call without it
${cacheLines.join('\n')}

## The API's CPU per live call, and what each feature adds
${cpuLines.join('\n')}

## Jobs
${jobLines.join('\n')}

## Batches
${batchLines.join('\n')}

## ${SLOW_CALLS} concurrent slow calls
${slowLines.join('\n')}

## Scale-out
${scaleLines.join('\n')}
`)

await Promise.all(children.map(stop))
await db.close()
const admin = new pg.Client({ connectionString: withDatabase(server.url, 'postgres') })
await admin.connect()
await admin.query(`drop database if exists "${dbName}" with (force)`)
await admin.end()
await server.stop()
process.exit(0)
