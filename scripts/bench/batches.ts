// The batches scenario of `npm run bench` (BENCH_ONLY=batches): with two worker processes running,
//  1. the other account's figures alone: sync /v1/classify p50 under light load, and 20 async /v1/parse jobs sent
//     one at a time (acceptance → claim);
//  2. one account's 10,000-item /v1/parse batch (window 24h), and while it runs the same figures again, plus a
//     third account's 100-item batch: when its first item starts (fair across accounts);
//  3. the batch's items/s and CPU per item (API + workers + PostgreSQL, acceptance to the last ending) against
//     2,000 single async jobs drained by the same workers (the same meter);
//  4. the API's RSS growth while it streams the 10,000 results.
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Database } from '../../core/db/database.ts'

export interface BatchesBench {
  db: Database
  apiUrl: string
  api: ChildProcess
  /** Accounts with credits: the batch's, the other account's, a third account's. */
  accounts: { key: string; accountId: string }[]
  startWorkers(): Promise<ChildProcess[]>
  stop: (c: ChildProcess) => Promise<void>
  meter(procs: Record<string, ChildProcess[]>): { stop(): Record<string, number> }
  /** The load generator on one URL: p50 of `connections` clients for the run's seconds. */
  load(opts: Record<string, unknown>): Promise<{ p50: number; rps: number; requests: number; non2xx: number }>
}

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 10_000)
const SINGLE_JOBS = 2000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const parse = (i: number) => ({ text: `Invoice ${i} from ACME, total 10.00` })
const classify = JSON.stringify({ text: 'My card was charged twice.', labels: ['billing', 'technical'] })

async function post(b: BatchesBench, key: string, path: string, body: unknown) {
  const res = await fetch(`${b.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.status !== 202) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}`)
  return (await res.json()) as { jobId?: string; batchId?: string }
}

/** Acceptance → claim of `n` async jobs sent one at a time, in ms (the job's created_at to its started_at). */
async function asyncStarts(b: BatchesBench, key: string, n: number): Promise<number[]> {
  const waits: number[] = []
  for (let i = 0; i < n; i++) {
    const { jobId } = await post(b, key, '/v1/parse', { ...parse(i), async: true })
    for (;;) {
      const [row] = await b.db.sql(
        `select extract(epoch from started_at - created_at) * 1000 as ms from jobs where id = ? and started_at is not null`,
        [jobId],
      )
      if (row) {
        waits.push(Number(row.ms))
        break
      }
      await sleep(20)
    }
  }
  return waits
}

const syncP50 = async (b: BatchesBench, key: string) =>
  (
    await b.load({
      url: `${b.apiUrl}/v1/classify`,
      body: classify,
      connections: 4,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    })
  ).p50

const rowId = (batchId: string) => batchId.slice(4).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')

async function batchDone(b: BatchesBench, batchId: string): Promise<void> {
  for (;;) {
    const [row] = await b.db.sql(`select completed_at from batches where id = ?`, [rowId(batchId)])
    if (row?.completed_at) return
    await sleep(100)
  }
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

export async function benchBatches(b: BatchesBench): Promise<string[]> {
  const [owner, other, third] = b.accounts as [BatchesBench['accounts'][0], BatchesBench['accounts'][0], BatchesBench['accounts'][0]]
  const workers = await b.startWorkers()
  const procs = { api: [b.api], workers }
  // 1. alone
  await asyncStarts(b, other.key, 5) // warm-up
  const aloneSync = await syncP50(b, other.key)
  const aloneStarts = await asyncStarts(b, other.key, 20)

  // 2. beside a 10,000-item batch
  const m = b.meter(procs)
  const t0 = performance.now()
  const big = await post(b, owner.key, '/v1/batches', {
    endpoint: 'parse',
    window: '24h',
    items: Array.from({ length: ITEMS }, (_, i) => ({ customId: `invoice-${i}`, body: parse(i) })),
  })
  const acceptMs = performance.now() - t0
  const small = await post(b, third.key, '/v1/batches', {
    endpoint: 'parse',
    items: Array.from({ length: 100 }, (_, i) => ({ customId: `s-${i}`, body: parse(i) })),
  })
  const besideSync = await syncP50(b, other.key)
  const besideStarts = await asyncStarts(b, other.key, 20)
  await batchDone(b, small.batchId!)
  const [fair] = await b.db.sql(
    `select extract(epoch from min(j.started_at) - b.created_at) * 1000 as first_ms, extract(epoch from b.completed_at - b.created_at) as span
       from batches b join jobs j on j.batch_id = b.id where b.id = ? group by b.id`,
    [rowId(small.batchId!)],
  )
  const [bigProgress] = await b.db.sql(`select succeeded + failed as ended from batches where id = ?`, [rowId(big.batchId!)])
  await batchDone(b, big.batchId!)
  const batchCpu = m.stop()
  const [span] = await b.db.sql(`select extract(epoch from completed_at - created_at) as s, succeeded from batches where id = ?`, [
    rowId(big.batchId!),
  ])

  // 3. the same work as single async jobs
  const m2 = b.meter(procs)
  const since = new Date()
  let sent = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < SINGLE_JOBS) await post(b, owner.key, '/v1/parse', { ...parse(sent++), async: true })
    }),
  )
  for (;;) {
    const [row] = await b.db.sql(`select exists (select from jobs where status in ('queued', 'running') and created_at >= ?) as open`, [
      since,
    ])
    if (!row!.open) break
    await sleep(50)
  }
  const singleCpu = m2.stop()

  // 4. streaming the results
  const rss0 = rssMiB(b.api.pid!)
  let peak = rss0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(b.api.pid!))), 20)
  const res = await fetch(`${b.apiUrl}/v1/batches/${big.batchId}/results`, { headers: { authorization: `Bearer ${owner.key}` } })
  let bytes = 0
  let lines = 0
  for await (const chunk of res.body!) {
    bytes += (chunk as Uint8Array).byteLength
    for (const c of chunk as Uint8Array) if (c === 10) lines++
  }
  clearInterval(sampler)
  peak = Math.max(peak, rssMiB(b.api.pid!))
  await Promise.all(workers.map(b.stop))

  const total = (cpu: Record<string, number>) => Object.values(cpu).reduce((s, v) => s + v, 0)
  const f = (n: number) => n.toFixed(1)
  return [
    '',
    `Two worker processes (WORKER_CONCURRENCY 64 each), BATCH_ACCOUNT_CONCURRENCY ${process.env.BATCH_ACCOUNT_CONCURRENCY ?? 16}, BATCH_CONCURRENCY ${process.env.BATCH_CONCURRENCY ?? 48}, ` +
      `BATCH_ITEMS_PER_SECOND ${process.env.BATCH_ITEMS_PER_SECOND ?? 40}; the fake model over HTTP.`,
    '',
    '| figure | alone | beside a 10,000-item batch | ratio |',
    '|---|---:|---:|---:|',
    `| another account's sync /v1/classify p50 (4 clients), ms | ${f(aloneSync)} | ${f(besideSync)} | ${(besideSync / aloneSync).toFixed(2)} × |`,
    `| another account's async /v1/parse, acceptance → start, median ms (20 jobs one at a time) | ${f(median(aloneStarts))} | ${f(median(besideStarts))} | max ${f(Math.max(...besideStarts))} ms |`,
    '',
    `- the 10,000-item batch: accepted in ${f(acceptMs)} ms (every item validated and priced), ${Number(bigProgress!.ended)} items had ended when the other figures were taken; ` +
      `${span!.succeeded} succeeded in ${f(Number(span!.s))} s: **${f(ITEMS / Number(span!.s))} items/s**`,
    `- a third account's 100-item batch accepted after it: first item started ${f(Number(fair!.first_ms))} ms after acceptance, all ended in ${f(Number(fair!.span))} s`,
    `- CPU per item (API + workers + PostgreSQL, acceptance to the last ending): **${(total(batchCpu) / ITEMS).toFixed(2)} ms** as batch items, ` +
      `**${(total(singleCpu) / SINGLE_JOBS).toFixed(2)} ms** as ${SINGLE_JOBS} single async jobs (API ${(batchCpu.api! / ITEMS).toFixed(2)} vs ${(singleCpu.api! / SINGLE_JOBS).toFixed(2)}, ` +
      `workers ${(batchCpu.workers! / ITEMS).toFixed(2)} vs ${(singleCpu.workers! / SINGLE_JOBS).toFixed(2)}, PostgreSQL ${(batchCpu.postgres! / ITEMS).toFixed(2)} vs ${(singleCpu.postgres! / SINGLE_JOBS).toFixed(2)})`,
    `- streaming the ${lines.toLocaleString('en-US')} result lines (${f(bytes / 1048576)} MiB): API RSS ${f(rss0)} → peak ${f(peak)} MiB, **growth ${f(peak - rss0)} MiB**`,
    '',
  ]
}
