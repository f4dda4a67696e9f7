// The jobs scenario of `npm run bench` (issue 18's targets: ≥ 1,000 completed/s with two workers, enqueue→start
// p50 ≤ 10 ms with idle workers). For this checkout, and first for each baseline checkout given
// (BENCH_JOBS_BASELINES=dir,dir… for the workers only, else BENCH_BASELINE; same run, database and model): a
// backlog of async /v1/parse calls accepted with no worker running, parked, then released at once to two worker
// processes (each booted beforehand); CPU per job read per process from /proc, transactions per job from
// pg_stat_database. The ledger must then show exactly one charge per succeeded job. Last, 50 jobs sent one at a
// time to the idle workers give the enqueue→start latency: from the API's request time (the job's created_at,
// so acceptance's own durable commit is included) to the worker's claim (its started_at).
// A baseline may carry worker settings after `?` (`/tmp/base,.?WORKER_PREFETCH=128`: this checkout, another
// prefetch). BENCH_JOBS_ROUNDS=n runs every variant n times, taking turns, and ends with the medians: on a shared
// machine completed/s of the same code moves by 2× between drains minutes apart, so a single pair proves little.
import type { ChildProcess } from 'node:child_process'
import type { Database } from '../../core/db/database.ts'

const PARSE_PRICE = 10
const body = JSON.stringify({ text: 'Invoice 42 from ACME, total 10.00', async: true })

export interface JobsBench {
  db: Database
  apiUrl: string
  api: ChildProcess
  model: ChildProcess
  jobs: number
  /** Funded accounts the backlog is spread over; the idle-latency jobs use the first. */
  accounts: { key: string; accountId: string }[]
  /** Boots two worker processes from this checkout, or from another one (cwd), with extra settings. */
  startWorkers(cwd?: string, env?: Record<string, string>): Promise<ChildProcess[]>
  stop: (c: ChildProcess) => Promise<void>
  meter(procs: Record<string, ChildProcess[]>): { stop(): Record<string, number> }
  ledger(accountIds: string[]): Promise<{ charged: number; n: number }>
  /** Committed transactions of the database so far, once every backend has flushed its counters (11 s). */
  xacts(): Promise<number>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

/**
 * BENCH_PG_STATEMENTS=1 with pg_stat_statements preloaded in the server (shared_preload_libraries): the drain's
 * statements, most time first, per job. Nested statements (functions) are tracked too when the server sets
 * pg_stat_statements.track = all.
 */
async function pgStatements(db: Database): Promise<(n: number) => Promise<string[]>> {
  await db.sql(`create extension if not exists pg_stat_statements`)
  await db.sql(`select pg_stat_statements_reset()`)
  return async (n) => {
    const rows = await db.sql(
      `select calls, total_exec_time as ms, rows, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
         from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
        order by total_exec_time desc limit 25`,
    )
    return [
      '',
      '| calls/job | exec ms/job | rows/call | top | statement |',
      '|---:|---:|---:|---|---|',
      ...rows.map(
        (r) =>
          `| ${(Number(r.calls) / n).toFixed(2)} | ${(Number(r.ms) / n).toFixed(3)} | ${(Number(r.rows) / Number(r.calls)).toFixed(1)} | ${r.toplevel ? 'y' : ''} | \`${String(r.query).replace(/\|/g, '\\|')}\` |`,
      ),
      '',
    ]
  }
}

async function accept(b: JobsBench, key: string): Promise<string> {
  const res = await fetch(`${b.apiUrl}/v1/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  })
  if (res.status !== 202) throw new Error(`parse async: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { jobId: string }).jobId
}

export async function benchJobs(b: JobsBench): Promise<string[]> {
  const lines: string[] = []
  const baselines = (process.env.BENCH_JOBS_BASELINES ?? process.env.BENCH_BASELINE ?? '').split(',').filter(Boolean)
  const variants = [
    ...baselines.map((entry) => {
      const [cwd, settings] = entry.split('?') as [string, string | undefined]
      return { label: `baseline ${entry}`, cwd, env: Object.fromEntries(new URLSearchParams(settings ?? '')) }
    }),
    { label: 'this checkout', cwd: undefined, env: {} },
  ]
  const rounds = Number(process.env.BENCH_JOBS_ROUNDS ?? 1)
  const figures = variants.map(() => ({ perSecond: [] as number[], cpuPerJob: [] as number[] }))
  for (let round = 1; round <= rounds; round++)
    for (const [k, v] of variants.entries()) {
      const accountIds = b.accounts.map((a) => a.accountId)
      const before = await b.ledger(accountIds)
      // The backlog, accepted with no worker running (16 clients).
      const ids: string[] = []
      const since = new Date()
      const enqueue = b.meter({ api: [b.api] })
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          while (ids.length < b.jobs) {
            const slot = ids.push('') - 1
            ids[slot] = await accept(b, b.accounts[i % b.accounts.length]!.key)
          }
        }),
      )
      const enqueueCpu = enqueue.stop()
      // Both workers boot with the backlog parked in the future, then it is released at once: the figure is two
      // running workers draining a queue, not one worker while the other boots.
      await b.db.sql(`update graphile_worker._private_jobs set run_at = now() + interval '1 hour'`)
      const workers = await b.startWorkers(v.cwd, v.env)
      const statements = process.env.BENCH_PG_STATEMENTS ? await pgStatements(b.db) : null
      const x0 = await b.xacts()
      const [wal0] = await b.db.sql(`select pg_current_wal_lsn()::text as lsn`)
      const ownTrips = b.db.roundTrips()
      const m = b.meter({ worker1: [workers[0]!], worker2: [workers[1]!], api: [b.api], model: [b.model] })
      await b.db.sql(`update graphile_worker._private_jobs set run_at = now()`)
      await b.db.sql(`select pg_notify('jobs:insert', '')`)
      // Polled through the open-jobs index: checking the 2,000 ids themselves cost PostgreSQL ~0.1–0.9 ms per job.
      for (;;) {
        const [row] = await b.db.sql(`select exists (select from jobs where status in ('queued', 'running') and created_at >= ?) as open`, [
          since,
        ])
        if (!row!.open) break
        await sleep(50)
      }
      const cpu = m.stop()
      const [wal] = await b.db.sql(`select pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn) as bytes`, [wal0!.lsn])
      // Transactions of the workers alone: this process's own polling statements are subtracted.
      const perJobXacts = ((await b.xacts()) - x0 - (b.db.roundTrips() - ownTrips)) / b.jobs
      const [s] = await b.db.sql(
        `select count(*)::int as n, count(*) filter (where status = 'succeeded')::int as ok,
              extract(epoch from max(finished_at::timestamptz) - min(started_at::timestamptz)) as span
         from jobs where id = any(?::uuid[])`,
        [ids],
      )
      const after = await b.ledger(accountIds)
      const n = Number(s!.n)
      const ok = Number(s!.ok)
      const charges = after.n - before.n
      const credits = after.charged - before.charged
      const perJob = (ms: number | undefined) => ((ms ?? 0) / n).toFixed(2)
      figures[k]!.perSecond.push(n / Number(s!.span))
      figures[k]!.cpuPerJob.push(((cpu.worker1 ?? 0) + (cpu.worker2 ?? 0) + (cpu.postgres ?? 0)) / n)
      lines.push(
        `### ${v.label}${rounds > 1 ? ` (round ${round} of ${rounds})` : ''}`,
        `- ${n} queued jobs, two worker processes: **${(n / Number(s!.span)).toFixed(0)} completed/s** (first start to last finish ${Number(s!.span).toFixed(2)} s), ${ok} succeeded`,
        `- CPU per job: **worker 1 ${perJob(cpu.worker1)} ms + worker 2 ${perJob(cpu.worker2)} ms, PostgreSQL ${perJob(cpu.postgres)} ms**, API ${perJob(cpu.api)} ms, fake model ${perJob(cpu.model)} ms; acceptance beforehand: API ${perJob(enqueueCpu.api)} ms, PostgreSQL ${perJob(enqueueCpu.postgres)} ms`,
        `- transactions per job (pg_stat_database, graphile-worker's included; each writing one is a durable commit): **${perJobXacts.toFixed(2)}**; WAL ${(Number(wal!.bytes) / n).toFixed(0)} bytes per job`,
        `- ${charges} charges, ${credits} credits for ${ok} succeeded jobs (price ${PARSE_PRICE}): ${charges === ok && credits === PARSE_PRICE * ok ? 'exact' : 'NOT EXACT'}`,
      )
      if (statements) lines.push(...(await statements(n)))
      const waits: number[] = []
      for (let i = 0; i < 50; i++) {
        const jobId = await accept(b, b.accounts[0]!.key)
        for (;;) {
          const [row] = await b.db.sql(
            `select extract(epoch from started_at::timestamptz - created_at::timestamptz) * 1000 as wait from jobs where id = ? and started_at is not null`,
            [jobId],
          )
          if (row) {
            waits.push(Number(row.wait))
            break
          }
          await sleep(2)
        }
        await sleep(20)
      }
      lines.push(
        `- enqueue→start with idle workers (50 jobs, one at a time): **p50 ${pct(waits, 50).toFixed(1)} ms**, p99 ${pct(waits, 99).toFixed(1)} ms`,
      )
      await Promise.all(workers.map(b.stop))
    }
  if (rounds > 1) {
    const median = (xs: number[]) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)]!
    const first = figures[0]!
    lines.push(
      '',
      `| ${rounds} rounds, taking turns | completed/s, median (each round) | vs first | CPU ms/job workers + PostgreSQL, median | vs first |`,
      '|---|---:|---:|---:|---:|',
      ...variants.map((v, k) => {
        const f = figures[k]!
        return `| ${v.label} | **${median(f.perSecond).toFixed(0)}** (${f.perSecond.map((x) => x.toFixed(0)).join(', ')}) | ${((median(f.perSecond) / median(first.perSecond) - 1) * 100).toFixed(1)} % | ${median(f.cpuPerJob).toFixed(2)} | ${((median(f.cpuPerJob) / median(first.cpuPerJob) - 1) * 100).toFixed(1)} % |`
      }),
    )
  }
  return lines
}
