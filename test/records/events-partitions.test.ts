// Account events in day partitions (migration 0029): the events, deliveries and attempts a database already holds
// stay (deliveries now carry their event's time), every query the API runs on them stays on an index, new
// deliveries and their jobs carry the event's time to the microsecond, and retention drops an event's day with its
// deliveries.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { loadConfig } from '../../core/config.ts'
import { migrate, openDatabase, type Database } from '../../core/db/database.ts'
import { listPartitions, maintainPartitions, periodStart } from '../../core/records/partitions.ts'
import { PARTITIONED_TABLES } from '../../core/records/tables.ts'
import { scratchDatabase } from '../helpers/scratch-database.ts'

const DAY = 86400_000
const EVENT_TABLES = ['events', 'event_deliveries', 'event_attempts']

/** `n` events of one account over the last `days` days, each with one delivery to `endpoint` and one attempt. */
async function fill(db: Database, accountId: string, endpoint: string, n: number, days: number): Promise<void> {
  await db.sql(
    `insert into events (id, account_id, type, livemode, data, created_at)
     select 'evt_old' || g, ?, 'balance.low', true, '{}', now() - make_interval(secs => g * ?::float / ?) from generate_series(1, ?) g`,
    [accountId, days * 86400, n, n],
  )
  await db.sql(
    `insert into event_deliveries (event_id, endpoint_id, url, status, attempts, created_at, updated_at)
     select id, ?, 'https://hooks.example.com/a', 'delivered', 1, created_at, created_at from events`,
    [endpoint],
  )
  await db.sql(
    `insert into event_attempts (delivery_id, attempt, at, status_code, duration_ms) select id, 1, created_at, 200, 12 from event_deliveries`,
  )
}

t.test('0029 keeps the events, deliveries and attempts a database holds; their queries stay on an index', async (t) => {
  const url = await scratchDatabase(t)
  await migrate(url, '0028-time-partitions')
  const db = await openDatabase(url, 2)
  t.teardown(() => db.close())
  const accountId = randomUUID()
  await db.sql(`insert into accounts (id, email) values (?, ?)`, [accountId, `${accountId}@example.com`])
  await db.sql(
    `insert into webhook_endpoints (id, account_id, url, secret, created_at, updated_at) values ('we_1', ?, 'https://hooks.example.com/a', 's', now(), now())`,
    [accountId],
  )
  await fill(db, accountId, 'we_1', 3000, 20)
  const [before] = await db.sql<{ file: string }>(`select pg_relation_filenode('events')::text as file`)

  await migrate(url)

  const [after] = await db.sql<{ file: string; events: number; deliveries: number; attempts: number; mismatched: number }>(
    `select pg_relation_filenode('events_legacy')::text as file, (select count(*)::int from events) as events,
            (select count(*)::int from event_deliveries) as deliveries, (select count(*)::int from event_attempts) as attempts,
            (select count(*)::int from event_deliveries d join events e on e.id = d.event_id join event_attempts a on a.delivery_id = d.id
              where d.event_created_at <> e.created_at) as mismatched`,
  )
  t.same(
    after,
    { file: before!.file, events: 3000, deliveries: 3000, attempts: 3000, mismatched: 0 },
    'every row kept, the events in their file',
  )
  for (const table of EVENT_TABLES) {
    const [kind] = await db.sql<{ kind: string }>(`select relkind::text as kind from pg_class where relname = ?`, [table])
    t.equal(kind!.kind, 'p', `${table} is partitioned`)
  }

  // New days get their partitions; the lookups read an index in each, and one partition where the time is named.
  await maintainPartitions(db, PARTITIONED_TABLES, new Date(), loadConfig({}))
  await db.sql(`analyze`)
  const plan = async (q: string, params: unknown[]) =>
    (await db.sql<{ 'QUERY PLAN': string }>(`explain ${q}`, params)).map((r) => r['QUERY PLAN']).join('\n')
  // The rows are in the legacy partitions (the empty new ones, never analysed, are read whichever way is cheapest).
  const noSeqScan = /Seq Scan on event\w*_legacy/
  const list = await plan(`select * from events where account_id = ? and livemode = ? order by seq desc limit 21`, [accountId, true])
  t.notMatch(list, noSeqScan, 'GET /v1/events: an index in order')
  t.notMatch(list, /-> {2}Sort /, 'GET /v1/events: no sort')
  t.notMatch(await plan(`select * from events where id = ? and account_id = ? and livemode = ?`, ['evt_old42', accountId, true]), noSeqScan)
  const [event] = await db.sql<{ at: string }>(`select created_at::text as at from events where id = 'evt_old42'`)
  const deliveries = await plan(
    `select d.*, a.* from event_deliveries d left join event_attempts a on a.delivery_id = d.id
      where d.event_id = ? and d.event_created_at = ?`,
    ['evt_old42', event!.at],
  )
  t.notMatch(deliveries, noSeqScan, 'an event’s deliveries and attempts: by index')
  t.match(deliveries, /event_deliveries_legacy/)
  t.notMatch(deliveries, /event_deliveries_p\d|event_deliveries_default/, 'in the one partition of the event’s day')
  const delivery = await plan(`select * from event_deliveries where id = ? and status = 'pending' and event_created_at = ?`, [1, event!.at])
  t.notMatch(delivery, noSeqScan, 'deliver_event’s delivery: by index')
  t.notMatch(delivery, /event_deliveries_p\d|event_deliveries_default/, 'in one partition')
})

t.test('a new event’s deliveries and jobs carry its time; retention drops its day with its deliveries', async (t) => {
  const url = await scratchDatabase(t)
  await migrate(url)
  const db = await openDatabase(url, 2)
  t.teardown(() => db.close())
  const accountId = randomUUID()
  await db.sql(`insert into accounts (id, email) values (?, ?)`, [accountId, `${accountId}@example.com`])
  await db.sql(
    `insert into webhook_endpoints (id, account_id, url, secret, created_at, updated_at) values ('we_1', ?, 'https://hooks.example.com/a', 's', now(), now())`,
    [accountId],
  )
  const config = loadConfig({ EVENTS_RETENTION_DAYS: '3' })
  const start = new Date(Date.now() + 30 * DAY) // a service clock ahead of every partition the migration made
  await maintainPartitions(db, PARTITIONED_TABLES, start, config)
  // clock_timestamp() has microseconds, as the alert triggers' events do.
  const [{ id }] = (await db.sql<{ id: string }>(
    `select emit_event(?, 'balance.low', true, '{}', null, clock_timestamp() + interval '30 days') as id`,
    [accountId],
  )) as [{ id: string }]
  const [emitted] = await db.sql<{ id: string; at: string }>(`select id, created_at::text as at from events where id = ?`, [id])
  const [job] = await db.sql<{ payload: { deliveryId: number; eventCreatedAt: string } }>(
    `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'deliver_event'`,
  )
  const [delivery] = await db.sql<{ at: string; id: string }>(
    `select event_created_at::text as at, id::text from event_deliveries where event_id = ?`,
    [emitted!.id],
  )
  t.equal(delivery!.at, emitted!.at, 'the delivery carries its event’s time')
  t.equal(String(job!.payload.deliveryId), delivery!.id)
  const [same] = await db.sql<{ same: boolean }>(`select ?::timestamptz = ?::timestamptz as same`, [
    job!.payload.eventCreatedAt,
    emitted!.at,
  ])
  t.ok(same!.same, 'the job names the partition to the microsecond')

  let day = start
  for (let i = 0; i < 5; i++) {
    day = new Date(day.getTime() + DAY)
    await maintainPartitions(db, PARTITIONED_TABLES, day, config)
  }
  for (const table of EVENT_TABLES) {
    const days = (await listPartitions(db, table)).filter((p) => p.from !== null && p.to !== null)
    t.ok(days[0]!.from!.getTime() >= periodStart(day, 'day', -4).getTime(), `${table}: no day older than the retention`)
  }
  const [left] = await db.sql<{ events: number; deliveries: number }>(
    `select (select count(*)::int from events) as events, (select count(*)::int from event_deliveries) as deliveries`,
  )
  t.same(left, { events: 0, deliveries: 0 }, 'the event went with its deliveries')
})
