// `npm run bench:records`: the records at volume, in a scratch database dropped at the end.
//  1. The export of 1 million charges (BENCH_RECORDS_EXPORT) over HTTP from a real API process (`node core/server.ts
//     --api` with the `start:api` flags): `GET /v1/usage/export` written to a file as it arrives, the API's RSS
//     sampled from /proc every 20 ms against its RSS after a small warm-up export; the file then loaded with COPY
//     into a fresh table, whose sums must equal the ledger's.
//  2. The write cost per call in PostgreSQL CPU (the backend's /proc CPU) into the request log as it was before
//     partitioning (one table, its indexes, no rollups) and as it is (partitioned, rolled up), in the same run.
//  3. N request-log rows (BENCH_RECORDS_ROWS, default 50 million) over 30 days, each day built as the table of its
//     partition (generate_series into a table without indexes, rolled up once by the request log's own trigger
//     function, indexes built, attached), then timed with the code the API runs: GET /v1/requests' first page and a
//     lookup by request id (listRequests, findRequest), a 30-day summary from the rollups (usageSummary), and a week
//     of simulated days each with its retention pass (maintainPartitions: the day's prune, the table's size).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { loadConfig } from '../../core/config.ts'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl, type Database } from '../../core/db/database.ts'
import { createPartitionsAhead, maintainPartitions, partitionName, periodStart } from '../../core/records/partitions.ts'
import { usageSummary } from '../../core/records/rollups.ts'
import { PARTITIONED_TABLES } from '../../core/records/tables.ts'
import { findRequest, listRequests } from '../../core/requests/list.ts'
import { withDatabase } from '../../devkit/database.ts'
import { firstLine, freePort, startFlags } from './children.ts'
import { cpuMs } from './proc.ts'

const ROWS = Number(process.env.BENCH_RECORDS_ROWS ?? 50_000_000)
const EXPORT_ROWS = Number(process.env.BENCH_RECORDS_EXPORT ?? 1_000_000)
const DAYS = 30
const ACCOUNTS = 1000
const DAY = 86400_000
const NAME = 'capapi_bench_records'
const REQUEST_LOG = PARTITIONED_TABLES.find((t) => t.table === 'request_log')!

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]!
const ms = (n: number) => `${n.toFixed(1)} ms`
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now()
  const r = await fn()
  return [performance.now() - t0, r]
}

const report: string[] = []
const say = (line: string) => {
  console.log(line)
  report.push(line)
}

/** 1: the export over HTTP from an API process of its own; its RSS growth, and the CSV loaded back with COPY. */
async function exportOverHttp(db: Database, url: string, window: { from: Date; to: Date }): Promise<void> {
  const account = await createAccount(db, { email: `bench-export-${Date.now()}@example.test` }, new Date())
  const key = await createKey(db, account.id, { name: 'bench export' })
  await db.sql(
    `insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at)
     select ?, 'charge', -(1 + g % 5), 0, 'classify req_e' || g, ?, ?::timestamptz + make_interval(secs => g * 0.002)
       from generate_series(1, ?) g`,
    [account.id, key.id, window.from, EXPORT_ROWS],
  )
  await db.sql(`analyze ledger`)
  const port = await freePort()
  const api = spawn(process.execPath, [...startFlags('.', 'start:api'), 'core/server.ts', '--api'], {
    detached: true,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), MAIL_TO_LOG: 'true', SECRET_ENCRYPTION_KEY: 'b'.repeat(64) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    await firstLine(api, (l) => l.includes('API listening'))
    const get = (from: Date, to: Date) =>
      fetch(`http://127.0.0.1:${port}/v1/usage/export?from=${from.toISOString()}&to=${to.toISOString()}&format=csv`, {
        headers: { authorization: `Bearer ${key.key}` },
      })
    // Warm-up: a small export (10,000 rows), so the baseline has the route, the pool and the JIT ready.
    for (let i = 0; i < 3; i++) await (await get(window.from, new Date(window.from.getTime() + 20_000))).text()
    await new Promise((r) => setTimeout(r, 1000))
    const rss0 = rssOf(api.pid!)
    let peak = rss0
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(api.pid!))), 20)
    const dir = path.resolve('.bench')
    mkdirSync(dir, { recursive: true })
    chmodSync(dir, 0o755)
    const file = path.join(dir, 'records-export.csv')
    let bytes = 0
    const [exportMs] = await timed(async () => {
      const res = await get(window.from, window.to)
      if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
      const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>)
      body.on('data', (c: Buffer) => (bytes += c.length))
      await pipeline(body, createWriteStream(file, { mode: 0o644 }))
    })
    clearInterval(sampler)
    await db.sql(`create table records_export_loaded (created_at timestamptz, request_id text, endpoint text, key_id uuid,
                    credits bigint, usd numeric, livemode boolean)`)
    await db.sql(`copy records_export_loaded from '${file}' with (format csv, header true)`)
    rmSync(file)
    const [loaded] = await db.sql<{ n: number; credits: string; cents: string }>(
      `select count(*)::int as n, sum(credits)::text as credits, (sum(usd) * 100)::text as cents from records_export_loaded`,
    )
    const [ledger] = await db.sql<{ credits: string }>(
      `select (-sum(amount))::text as credits from ledger where account_id = ? and kind = 'charge'`,
      [account.id],
    )
    await db.sql(`drop table records_export_loaded`)
    const equal = loaded!.credits === ledger!.credits && Number(loaded!.cents) === Number(ledger!.credits)
    if (!equal || loaded!.n !== EXPORT_ROWS) throw new Error(`export loaded ${JSON.stringify(loaded)}, ledger ${ledger!.credits}`)
    say(
      `- export of ${loaded!.n.toLocaleString('en')} charges as CSV over HTTP (${mib(bytes)}): ${(exportMs / 1000).toFixed(1)} s; ` +
        `API RSS ${mib(rss0)} before, peak ${mib(peak)}, growth ${mib(peak - rss0)}; loaded with COPY: ${loaded!.credits} credits, ` +
        `equal to the ledger's (load average ${loadAverage()})`,
    )
  } finally {
    const exited = once(api, 'exit')
    process.kill(-api.pid!, 'SIGTERM')
    await exited
  }
}

/** 2: the same batches of 100 rows (the request log's flush) into the table as it was and as it is, taking turns. */
async function writeCost(db: Database, url: string, accountId: string): Promise<void> {
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
  const BATCHES = 300
  for (let b = 0; b < BATCHES; b++) {
    for (const [kind, table] of [
      ['flat', 'request_log_flat'],
      ['partitioned', 'request_log'],
    ] as const) {
      const before = cpuMs(pid)
      await writer.query(
        `insert into ${table} (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, credits, latency_ms, created_at)
         select $1::uuid, $1::uuid, 'ksk_live_abc', 'live', 'req_w' || g, 'POST', '/v1/classify', 200, 3, random() * 100, now()
           from generate_series(1, 100) g`,
        [accountId],
      )
      cpu[kind] += cpuMs(pid) - before
    }
  }
  await writer.end()
  await db.sql(`drop table request_log_flat`)
  const calls = BATCHES * 100
  say(
    `- write cost per call (PostgreSQL CPU, ${calls} rows in batches of 100 each): one table as before ${((cpu.flat / calls) * 1000).toFixed(1)} µs, ` +
      `partitioned with rollups ${((cpu.partitioned / calls) * 1000).toFixed(1)} µs (${(cpu.partitioned / cpu.flat).toFixed(2)}×)`,
  )
}

const account = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const HOT = account(1)

/**
 * 3: one day's rows as the table of its partition: generated without indexes (account 1 makes a tenth of the calls,
 * the rest spread over the others, each with one key; 2% refused, 5% tagged), rolled up once by the request log's
 * trigger function over the whole day, indexed like the other partitions, and attached in place of the empty one.
 */
async function loadDay(db: Database, day: Date, n: number): Promise<void> {
  const name = partitionName(REQUEST_LOG, day)
  const to = periodStart(day, 'day', 1)
  const [made] = await db.sql<{ rows: boolean }>(
    `select to_regclass(?) is not null and exists (select from request_log where created_at >= ? and created_at < ?) as rows`,
    [name, day, to],
  )
  if (made!.rows) throw new Error(`${name} holds rows already`)
  await db.sql(`drop table if exists ${name}`) // made ahead, empty
  await db.sql(`create table ${name} (like request_log including defaults including constraints)`)
  await db.sql(
    `create trigger bench_rollup after insert on ${name} referencing new table as new_rows
       for each statement execute function roll_up_requests()`,
  )
  await db.sql(
    `insert into ${name} (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, error_code, credits, latency_ms, created_at, metadata)
     select a, overlay(a::text placing '9' from 20 for 1)::uuid, 'ksk_live_abc', 'live', 'req_' || ?::text || '_' || g,
            'POST', '/v1/' || (array['classify', 'extract', 'summarize', 'translate', 'redact'])[g % 5 + 1],
            case when g % 50 = 0 then 400 else 200 end, case when g % 50 = 0 then 'invalid_request' end, case when g % 50 = 0 then 0 else 3 end,
            (random() * random() * 2000)::real, ?::timestamptz + make_interval(secs => (g - 1) * 86400.0 / ?),
            case when g % 20 = 0 then jsonb_build_object('team', 'team' || g % 7) end
       from generate_series(1, ?::bigint) g,
            lateral (select case when g % 10 = 0 then ?::uuid else ('00000000-0000-4000-8000-' || lpad(((g % ${ACCOUNTS - 1}) + 2)::text, 12, '0'))::uuid end as a) x`,
    [day.toISOString().slice(0, 10), day, n, n, HOT],
  )
  await db.sql(`drop trigger bench_rollup on ${name}`)
  await db.sql(`alter table ${name} add primary key (id, created_at)`)
  const indexes = await db.sql<{ def: string }>(
    `select pg_get_indexdef(i.indexrelid) as def from pg_index i where i.indrelid = 'request_log_default'::regclass and not i.indisprimary`,
  )
  for (const { def } of indexes) await db.sql(def.replace(/INDEX \S+ ON public\.request_log_default /, `INDEX ON public.${name} `))
  await db.sql(
    `alter table ${name} add constraint bench_range check (created_at >= '${day.toISOString()}' and created_at < '${to.toISOString()}')`,
  )
  await db.sql(`alter table request_log attach partition ${name} for values from ('${day.toISOString()}') to ('${to.toISOString()}')`)
  await db.sql(`alter table ${name} drop constraint bench_range`)
  await db.sql(`analyze ${name}`)
}

async function volume(db: Database): Promise<void> {
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
  const perDay = Math.floor(ROWS / DAYS)
  say(`- load average before generating: ${loadAverage()}`)
  const [genMs] = await timed(async () => {
    for (let d = 0; d < DAYS; d++) {
      await loadDay(db, new Date(first.getTime() + d * DAY), perDay)
      console.log(`generated day ${d + 1}/${DAYS} at ${new Date().toISOString()}`)
    }
  })
  await db.sql(`analyze usage_rollups`)
  await db.sql(`analyze usage_tag_rollups`)
  say(
    `- ${(perDay * DAYS).toLocaleString('en')} request-log rows over ${DAYS} days generated in ${(genMs / 1000).toFixed(0)} s ` +
      `(${Math.round((perDay * DAYS) / (genMs / 1000)).toLocaleString('en')} rows/s; load average after ${loadAverage()})`,
  )

  // Reads, as the API runs them, on the account with a tenth of the calls.
  const firstPage: number[] = []
  for (let i = 0; i < 200; i++) firstPage.push((await timed(() => listRequests(db, HOT, { mode: 'live' }, { limit: 50 })))[0])
  const lookups: number[] = []
  for (let i = 0; i < 200; i++) {
    const day = new Date(first.getTime() + Math.floor(Math.random() * DAYS) * DAY).toISOString().slice(0, 10)
    const g = Math.floor(Math.random() * (perDay / 10)) * 10 + 10 // a row of the hot account
    const [t, found] = await timed(() => findRequest(db, HOT, `req_${day}_${g}`, 'live'))
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
      const [t, s] = await timed(() => usageSummary(db, HOT, true, windowAll, groupBy))
      times.push(t)
      calls = s.total.calls
    }
    say(
      `- 30-day summary by ${groupBy} (${calls.toLocaleString('en')} calls): p50 ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))}, max ${ms(Math.max(...times))}`,
    )
  }

  // A week of simulated days: each day's maintenance pass (partitions ahead, the oldest day dropped), then its rows.
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
    await loadDay(db, periodStart(today, 'day', -1), perDay)
    sizes.push(await size())
  }
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`
  say(`- the day's prune (a maintenance pass dropping one day's partition): max ${ms(Math.max(...prunes))} over 7 days`)
  say(
    `- request_log total size over the week: ${sizes.map(gib).join(', ')} (max/min ${(Math.max(...sizes) / Math.min(...sizes)).toFixed(3)})`,
  )
}

const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const admin = new pg.Client({ connectionString: withDatabase(server.url, 'postgres') })
await admin.connect()
await admin.query(`drop database if exists ${NAME} with (force)`)
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), NAME)
const url = withDatabase(server.url, NAME)
try {
  await migrate(url)
  const db = await openDatabase(url, 4)
  const now = new Date()
  say(`- start ${now.toISOString()}, load average ${loadAverage()}`)
  // The export first: the API process then loads this checkout's code as it is when the run starts.
  await exportOverHttp(db, url, { from: periodStart(now, 'day', -DAYS), to: periodStart(now, 'day', 1) })
  await db.sql(`insert into accounts (id, email) values (?, 'bench-writer@example.com')`, [account(ACCOUNTS + 1)])
  await writeCost(db, url, account(ACCOUNTS + 1))
  await volume(db)
  say(`- end ${new Date().toISOString()}, load average ${loadAverage()}`)
  await db.close()
} finally {
  await admin.query(`drop database if exists ${NAME} with (force)`)
  await admin.end()
  await server.stop()
}
console.log('\n' + report.join('\n'))
