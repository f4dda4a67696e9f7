// `npm run bench:records`: the records at volume. N request-log rows (BENCH_RECORDS_ROWS, default 50 million) over
// 30 days are generated into a scratch database, then timed with the code the API runs: GET /v1/requests' first
// page and a lookup by request id (listRequests, findRequest), a 30-day summary from the rollups (usageSummary), a
// week of simulated days each with its retention pass (maintainPartitions: the day's prune, and the table's size
// day after day), the export of 1 million charges (ledgerExport: the process's RSS growth while it streams), and
// the write cost per call in PostgreSQL CPU (the backend's /proc CPU) into the request log as it was before
// partitioning (one table, its indexes, no rollups) and as it is (partitioned, rolled up), in the same run.
// The scratch database is dropped at the end.
import pg from 'pg'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl } from '../../core/db/database.ts'
import { loadConfig } from '../../core/config.ts'
import { ledgerExport } from '../../core/records/export.ts'
import { createPartitionsAhead, maintainPartitions, periodStart } from '../../core/records/partitions.ts'
import { usageSummary } from '../../core/records/rollups.ts'
import { PARTITIONED_TABLES } from '../../core/records/tables.ts'
import { findRequest, listRequests } from '../../core/requests/list.ts'
import { withDatabase } from '../../devkit/database.ts'
import { cpuMs } from './proc.ts'

const ROWS = Number(process.env.BENCH_RECORDS_ROWS ?? 50_000_000)
const EXPORT_ROWS = Number(process.env.BENCH_RECORDS_EXPORT ?? 1_000_000)
const DAYS = 30
const ACCOUNTS = 1000
const CHUNK = 500_000
const DAY = 86400_000
const NAME = 'capapi_bench_records'

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]!
const ms = (n: number) => `${n.toFixed(1)} ms`

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now()
  const r = await fn()
  return [performance.now() - t0, r]
}

const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const admin = new pg.Client({ connectionString: withDatabase(server.url, 'postgres') })
await admin.connect()
await admin.query(`drop database if exists ${NAME} with (force)`)
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), NAME)
const url = withDatabase(server.url, NAME)
const report: string[] = []
const say = (line: string) => {
  console.log(line)
  report.push(line)
}
try {
  await migrate(url)
  const db = await openDatabase(url, 4)
  const config = loadConfig({})
  const now = new Date()
  const first = periodStart(now, 'day', -DAYS) // 30 whole days, ending yesterday
  // A new install has nothing to attach: its (empty) partition of the rows before partitioning makes way for days.
  for (const t of PARTITIONED_TABLES) await db.sql(`drop table ${t.table}_legacy`)
  for (let d = 0; d < DAYS; d += 7)
    for (const t of PARTITIONED_TABLES) await createPartitionsAhead(db, t, new Date(first.getTime() + d * DAY))
  await db.sql(
    `insert into accounts (id, email) select ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'bench' || g || '@example.com'
       from generate_series(1, ?) g`,
    [ACCOUNTS],
  )
  const account = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
  const hot = account(1)
  const keyOf = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`

  // Rows of one day: account 1 makes a tenth of the calls, the rest spread over the others, each with one key; 2%
  // refused, 5% tagged.
  const insertDay = (q: { sql: (s: string, p?: unknown[]) => Promise<unknown> }, day: Date, n: number, offset: number) =>
    q.sql(
      `insert into request_log (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, error_code, credits, latency_ms, created_at, metadata)
       select a, overlay(a::text placing '9' from 20 for 1)::uuid, 'ksk_live_abc', 'live', 'req_' || ?::text || '_' || g,
              'POST', '/v1/' || (array['classify', 'extract', 'summarize', 'translate', 'redact'])[g % 5 + 1],
              case when g % 50 = 0 then 400 else 200 end, case when g % 50 = 0 then 'invalid_request' end, case when g % 50 = 0 then 0 else 3 end,
              (random() * random() * 2000)::real, ?::timestamptz + make_interval(secs => (g - ?) * 86400.0 / ?),
              case when g % 20 = 0 then jsonb_build_object('team', 'team' || g % 7) end
         from generate_series(?::bigint, ?::bigint) g,
              lateral (select case when g % 10 = 0 then ?::uuid else ('00000000-0000-4000-8000-' || lpad(((g % ${ACCOUNTS - 1}) + 2)::text, 12, '0'))::uuid end as a) x`,
      [day.toISOString().slice(0, 10), day, offset, n, offset, offset + n - 1, hot],
    )

  // The write cost per call, before and after partitioning: the same batches of 100 rows (the request log's flush)
  // into the table as it was and as it is, taking turns, PostgreSQL's CPU read from the backend's /proc entry.
  await db.sql(`create table request_log_flat (like request_log including defaults including constraints)`)
  await db.sql(`alter table request_log_flat add primary key (id)`)
  for (const index of [
    `(account_id, mode, id desc)`,
    `(created_at)`,
    `(account_id, idempotency_key) where idempotency_key is not null`,
    `using gin (metadata jsonb_path_ops) where metadata is not null`,
    `(account_id, request_id)`,
  ])
    await db.sql(`create index on request_log_flat ${index}`)
  const writer = new pg.Client({ connectionString: url })
  await writer.connect()
  const pid = ((await writer.query(`select pg_backend_pid() as pid`)).rows as Array<{ pid: number }>)[0]!.pid
  const cpu: Record<'flat' | 'partitioned', number> = { flat: 0, partitioned: 0 }
  const WRITE_BATCHES = 300
  for (let b = 0; b < WRITE_BATCHES; b++) {
    for (const [kind, table] of [
      ['flat', 'request_log_flat'],
      ['partitioned', 'request_log'],
    ] as const) {
      const before = cpuMs(pid)
      await writer.query(
        `insert into ${table} (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, credits, latency_ms, created_at)
         select $1::uuid, $2::uuid, 'ksk_live_abc', 'live', 'req_w' || g, 'POST', '/v1/classify', 200, 3, random() * 100, now()
           from generate_series(1, 100) g`,
        [hot, keyOf(1)],
      )
      cpu[kind] += cpuMs(pid) - before
    }
  }
  await writer.end()
  await db.sql(`drop table request_log_flat`)
  const calls = WRITE_BATCHES * 100
  say(
    `- write cost per call (PostgreSQL CPU, ${calls} rows in batches of 100 each): one table as before ${((cpu.flat / calls) * 1000).toFixed(1)} µs, ` +
      `partitioned with rollups ${((cpu.partitioned / calls) * 1000).toFixed(1)} µs (${(cpu.partitioned / cpu.flat).toFixed(2)}×)`,
  )

  // Generation.
  const perDay = Math.floor(ROWS / DAYS)
  const [genMs] = await timed(async () => {
    for (let d = 0; d < DAYS; d++) {
      const day = new Date(first.getTime() + d * DAY)
      for (let off = 1; off <= perDay; off += CHUNK) await insertDay(db, day, Math.min(CHUNK, perDay - off + 1), off)
      process.stdout.write(`\rgenerated day ${d + 1}/${DAYS}`)
    }
  })
  await db.sql(`analyze request_log`)
  console.log('')
  say(`- ${(perDay * DAYS).toLocaleString('en')} request-log rows over ${DAYS} days generated in ${(genMs / 1000).toFixed(0)} s`)

  // Reads, as the API runs them, on the account with a tenth of the calls.
  const firstPage: number[] = []
  for (let i = 0; i < 200; i++) firstPage.push((await timed(() => listRequests(db, hot, { mode: 'live' }, { limit: 50 })))[0])
  const lookups: number[] = []
  for (let i = 0; i < 200; i++) {
    const day = new Date(first.getTime() + Math.floor(Math.random() * DAYS) * DAY).toISOString().slice(0, 10)
    const g = Math.floor(Math.random() * (perDay / 10)) * 10 + 10 // a row of the hot account
    const [t, found] = await timed(() => findRequest(db, hot, `req_${day}_${g}`, 'live'))
    if (!found) throw new Error(`req_${day}_${g} not found`)
    lookups.push(t)
  }
  say(`- GET /v1/requests first page (50): p50 ${ms(percentile(firstPage, 0.5))}, p99 ${ms(percentile(firstPage, 0.99))}`)
  say(`- lookup by request id: p50 ${ms(percentile(lookups, 0.5))}, p99 ${ms(percentile(lookups, 0.99))}`)
  const windowAll = { from: first, to: periodStart(now, 'day', 1) }
  for (const groupBy of ['day', 'endpoint', 'metadata.team'] as const) {
    const times: number[] = []
    let calls = 0
    for (let i = 0; i < 20; i++) {
      const [t, s] = await timed(() => usageSummary(db, hot, true, windowAll, groupBy))
      times.push(t)
      calls = s.total.calls
    }
    say(
      `- 30-day summary by ${groupBy} (${calls.toLocaleString('en')} calls): p50 ${ms(percentile(times, 0.5))}, max ${ms(Math.max(...times))}`,
    )
  }

  // A week of simulated days: each day's rows, then its maintenance pass (partitions ahead, the oldest day dropped).
  const size = async () =>
    Number(
      (
        await db.sql<{ bytes: string }>(
          `select sum(pg_total_relation_size(inhrelid))::text as bytes from pg_inherits where inhparent = 'request_log'::regclass`,
        )
      )[0]!.bytes,
    )
  const sizes: number[] = [await size()]
  const prunes: number[] = []
  for (let d = 1; d <= 7; d++) {
    const today = new Date(now.getTime() + d * DAY)
    const [t, pass] = await timed(() => maintainPartitions(db, PARTITIONED_TABLES, today, config))
    prunes.push(t)
    if (pass['request_log']!.dropped.length !== 1) throw new Error(`day ${d}: dropped ${pass['request_log']!.dropped.join(', ')}`)
    for (let off = 1; off <= perDay; off += CHUNK) await insertDay(db, periodStart(today, 'day'), Math.min(CHUNK, perDay - off + 1), off)
    sizes.push(await size())
  }
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`
  say(`- the day's prune (a maintenance pass dropping one day's partition): max ${ms(Math.max(...prunes))} over 7 days`)
  say(
    `- request_log total size over the week: ${sizes.map(gib).join(', ')} (max/min ${(Math.max(...sizes) / Math.min(...sizes)).toFixed(3)})`,
  )

  // The export: a million charges of one account, streamed; RSS sampled while it runs.
  await db.sql(
    `insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at)
     select ?, 'charge', -3, 0, 'classify req_e' || g, ?, ?::timestamptz + make_interval(secs => g * 0.002) from generate_series(1, ?) g`,
    [account(2), keyOf(2), first, EXPORT_ROWS],
  )
  global.gc?.()
  const rss0 = process.memoryUsage().rss
  let peak = rss0
  let lines = 0
  let bytes = 0
  const [exportMs] = await timed(async () => {
    for await (const line of ledgerExport(db, account(2), windowAll, 'csv', 'standard')) {
      lines++
      bytes += line.length
      if (lines % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
    }
  })
  say(
    `- export of ${(lines - 1).toLocaleString('en')} charges as CSV (${(bytes / 2 ** 20).toFixed(0)} MiB): ${(exportMs / 1000).toFixed(1)} s, RSS growth ${((peak - rss0) / 2 ** 20).toFixed(1)} MiB`,
  )
  await db.close()
} finally {
  await admin.query(`drop database if exists ${NAME} with (force)`)
  await admin.end()
  await server.stop()
}
console.log('\n' + report.join('\n'))
