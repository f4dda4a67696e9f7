// The large logs in time partitions: the migration keeps the rows a table already holds (attached as one partition,
// the same file on disk: no rewrite), every lookup stays on an index, maintenance creates partitions ahead, moves
// rows that landed in the default partition into theirs, and drops whole partitions past each table's retention.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { loadConfig } from '../../core/config.ts'
import { migrate, openDatabase, type Database } from '../../core/db/database.ts'
import { listPartitions, maintainPartitions, partitionName, periodStart } from '../../core/records/partitions.ts'
import { PARTITIONED_TABLES } from '../../core/records/tables.ts'
import { scratchDatabase } from '../helpers/scratch-database.ts'

const DAY = 86400_000

async function fill(db: Database, accountId: string, keyId: string, rows: number, ageDays: number): Promise<void> {
  await db.sql(
    `insert into request_log (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, latency_ms, created_at)
     select ?, ?, 'sk_test_abcd', 'live', 'req_' || g, 'POST', '/v1/alpha', 200, 12, now() - make_interval(secs => g * ?::float / ?)
       from generate_series(1, ?) g`,
    [accountId, keyId, ageDays * 86400, rows, rows],
  )
  await db.sql(
    `insert into usage_events (account_id, key_id, endpoint, credits, request_id, created_at)
     select account_id, key_id, endpoint, 3, request_id, created_at from request_log`,
  )
  await db.sql(
    `insert into audit_entries (account_id, at, actor_type, action, target_type) select ?, created_at, 'system', 'test.filled', 'test'
       from request_log where request_id in ('req_1', 'req_2')`,
    [accountId],
  )
}

t.test('the migration keeps the rows in place, on the indexes, and new rows go to partitions', async (t) => {
  const url = await scratchDatabase(t)
  await migrate(url, '0022-webhook-secrets-per-mode')
  const db = await openDatabase(url, 2)
  t.teardown(() => db.close())
  const accountId = randomUUID()
  const keyId = randomUUID()
  await db.sql(`insert into accounts (id, email) values (?, ?)`, [accountId, `${accountId}@example.com`])
  await fill(db, accountId, keyId, 5000, 20)
  const [before] = await db.sql<{ file: string; n: number }>(
    `select pg_relation_filenode('request_log')::text as file, (select count(*)::int from request_log) as n`,
  )
  const [auditIdBefore] = await db.sql<{ id: string }>(`select max(id)::text as id from audit_entries`)

  await migrate(url)

  const [after] = await db.sql<{ file: string; n: number; kind: string }>(
    `select pg_relation_filenode('request_log_legacy')::text as file, (select count(*)::int from request_log) as n,
            (select relkind::text from pg_class where relname = 'request_log') as kind`,
  )
  t.equal(after!.kind, 'p', 'request_log is a partitioned table')
  t.equal(after!.n, before!.n, 'every row is still there')
  t.equal(after!.file, before!.file, 'the old rows stay in their file: attached, not copied')
  const [rolled] = await db.sql<{ calls: number; credits: number }>(
    `select sum(calls)::int as calls, sum(credits)::int as credits from usage_rollups where account_id = ?`,
    [accountId],
  )
  t.same(rolled, { calls: 5000, credits: 15000 }, 'the rows already logged are in the usage rollups')
  for (const p of PARTITIONED_TABLES) {
    const names = (await listPartitions(db, p.table)).map((x) => x.name)
    t.ok(names.includes(`${p.table}_legacy`) && names.includes(`${p.table}_default`), `${p.table}: the old rows' and the default partition`)
  }

  // Lookups stay on an index in each partition.
  await db.sql(`analyze`)
  const plan = async (q: string, params: unknown[]) =>
    (await db.sql<{ 'QUERY PLAN': string }>(`explain ${q}`, params)).map((r) => r['QUERY PLAN']).join('\n')
  const byId = await plan(`select * from request_log where account_id = ? and request_id = ? order by id limit 1`, [accountId, 'req_42'])
  t.match(byId, /Index (Only )?Scan/, 'a request by its id: an index scan')
  t.notMatch(byId, /Seq Scan on request_log_legacy/, 'never a scan of the partition of rows')
  const page = await plan(`select * from request_log where account_id = ? and mode = 'live' order by id desc limit 51`, [accountId])
  t.notMatch(page, /Seq Scan on request_log_legacy|-> {2}Sort /, 'the first page of GET /v1/requests reads an index in order')
  const [indexes] = await db.sql<{ n: number }>(`select count(*)::int as n from pg_indexes where tablename = 'request_log_legacy'`)
  t.equal(indexes!.n, 6, 'the old rows keep their five indexes and one primary key: none built twice')

  // New rows: numbered after the old ones, into the partitions maintenance creates (the default until then).
  const passes = await maintainPartitions(db, PARTITIONED_TABLES, new Date(), loadConfig({}))
  t.ok(passes['request_log']!.created.length >= 7, 'a week of daily partitions ahead')
  const [entry] = await db.sql<{ id: string; partition: string }>(
    `with i as (insert into audit_entries (account_id, at, actor_type, action, target_type)
       values (?, now() + interval '40 days', 'system', 'test.new', 'test') returning id::text, tableoid::regclass::text as partition)
     select * from i`,
    [accountId],
  )
  t.ok(BigInt(entry!.id) > BigInt(auditIdBefore!.id), 'the audit log numbers on from where it was')
  t.equal(entry!.partition, partitionName(PARTITIONED_TABLES[3]!, periodStart(new Date(Date.now() + 40 * DAY), 'month')))
  const [dup] = await db.sql<{ n: number }>(`select count(*)::int as n from request_log where request_id = 'req_1'`)
  t.equal(dup!.n, 1)
})

t.test('maintenance moves strays out of the default partition and drops whole partitions past the retention', async (t) => {
  const url = await scratchDatabase(t)
  await migrate(url)
  const db = await openDatabase(url, 2)
  t.teardown(() => db.close())
  const accountId = randomUUID()
  await db.sql(`insert into accounts (id, email) values (?, ?)`, [accountId, `${accountId}@example.com`])
  const config = loadConfig({ REQUEST_LOG_RETENTION_DAYS: '3' })
  const requestLog = PARTITIONED_TABLES[0]!
  const insert = (at: Date, requestId: string) =>
    db.sql(
      `with i as (insert into request_log (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, latency_ms, created_at)
       values (?, ?, 'sk_test_abcd', 'live', ?, 'GET', '/v1/requests', 200, 1, ?) returning tableoid::regclass::text as partition)
       select * from i`,
      [accountId, randomUUID(), requestId, at],
    )
  const start = new Date(Date.now() + 30 * DAY) // a service clock ahead of every partition the migration made
  const [stray] = await insert(new Date(start.getTime() + DAY), 'req_stray')
  t.equal(stray!.partition, 'request_log_default', 'a row with no partition yet is kept, in the default one')

  let day = start
  const sizes: number[] = []
  for (let i = 0; i < 10; i++) {
    await maintainPartitions(db, PARTITIONED_TABLES, day, config)
    if (i === 0) {
      const [moved] = await db.sql<{ partition: string }>(
        `select tableoid::regclass::text as partition from request_log where request_id = 'req_stray'`,
      )
      t.equal(
        moved!.partition,
        partitionName(requestLog, periodStart(new Date(start.getTime() + DAY), 'day')),
        'the stray moved to its partition',
      )
    }
    for (let k = 0; k < 20; k++) await insert(new Date(day.getTime() + k * 60_000), `req_${i}_${k}`)
    const [size] = await db.sql<{ bytes: string }>(`select pg_total_relation_size('request_log')::text as bytes`)
    sizes.push(Number(size!.bytes))
    day = new Date(day.getTime() + DAY)
  }

  const partitions = (await listPartitions(db, 'request_log')).filter((p) => p.from !== null && p.to !== null)
  const oldest = partitions[0]!.from!
  const last = new Date(day.getTime() - DAY)
  t.ok(oldest.getTime() >= periodStart(last, 'day', -4).getTime(), 'no partition older than the retention is left')
  const [kept] = await db.sql<{ n: number }>(`select count(*)::int as n from request_log where created_at >= ?`, [
    periodStart(last, 'day', -2),
  ])
  t.equal(kept!.n, 60, 'the last three days are all there')
  t.equal(sizes.at(-1), sizes.at(-4), 'the table stays the same size from day to day once the retention is reached')
})
