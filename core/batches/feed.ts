// Batch items wait in the jobs table (queued, not dispatched) and are handed to graphile-worker a bounded
// number at a time (FEED below): each account up to BATCH_ACCOUNT_CONCURRENCY items in flight, all accounts up to
// BATCH_CONCURRENCY, round robin across accounts, window `24h` behind async jobs in graphile-worker's priority, and
// the whole lane at BATCH_ITEMS_PER_SECOND (each item's run_at is its slot). So a 10,000-item batch never fills the
// queue ahead of anyone's async jobs nor of another account's batch, and its CPU per second is bounded. The feeder
// runs after acceptance, after each item ends (the item's task), and on every worker's timer, so a process killed
// between an ending and its feed delays nothing for long.
import type { JobHelpers } from 'graphile-worker'
import { runCapabilityTask } from '../jobs/run-task.ts'
import type { Services } from '../services.ts'
import { PACE_HORIZON_SECONDS } from './limits.ts'

/** The graphile-worker task of a batch item: the kernel's run_capability task, then the next items fed. */
export const BATCH_ITEM_TASK = 'run_batch_item'

export function batchItemTask(services: Services) {
  const run = runCapabilityTask(services)
  return async (payload: unknown, helpers: JobHelpers): Promise<void> => {
    try {
      await run(payload, helpers)
    } finally {
      void feedBatches(services)
    }
  }
}

/**
 * For every account with an open batch: its items in flight (dispatched, not ended), then its next waiting items up
 * to its share (the oldest batch first, in item order); one item per account per round up to the total. Each item
 * chosen gets the lane's next slot of the pace (one every 1/BATCH_ITEMS_PER_SECOND s, after the last slot any
 * entry of the queue holds, waiting or running, never before now) as its run_at, up to PACE_HORIZON_SECONDS ahead; those rows locked
 * (in id order, skipping any a cancel or an ending holds, never waiting) and handed out. The pace's only state is
 * the queue's own entries, so it holds across processes, kills and restarts. Parameters: the slot (s), the task,
 * the share, the total, the horizon (s). Answers how many were fed and how far ahead of now the next slot is (s).
 */
const FEED = `
  with clock as materialized (
    select clock_timestamp() as now
  ), slot as (
    select ?::float8 as seconds
  ), task as (
    select id from graphile_worker._private_tasks where identifier = ?
  ), pace as (
    select greatest((select now from clock), max(e.run_at) + (select seconds from slot) * interval '1 second') as first_slot,
           (select seconds from slot) as slot
      from graphile_worker._private_jobs e
     where e.task_id = (select id from task) and (e.attempts < e.max_attempts or e.locked_at is not null) -- running too
  ), in_flight as (
    select a.account_id,
           (select count(*) from jobs j where j.account_id = a.account_id and j.batch_id is not null and j.dispatched
               and j.status in ('queued', 'running')) as n
      from (select distinct b.account_id from batches b where b.status = 'queued' and b.mode = 'live') a
  ), candidates as (
    select f.account_id, f.n, c.id, c.priority,
           row_number() over (partition by f.account_id order by c.created_at, c.batch_id, c.batch_index) as rn
      from in_flight f
      cross join lateral (
        select j.id, j.created_at, j.batch_id, j.batch_index, case when b.batch_window = 'now' then 0 else 10 end as priority
          from jobs j join batches b on b.id = j.batch_id
         where j.account_id = f.account_id and j.batch_id is not null and j.status = 'queued' and not j.dispatched
         order by j.created_at, j.batch_id, j.batch_index
         limit greatest(0, ?::int - f.n)
      ) c
  ), ranked as (
    select id, priority, row_number() over (order by n + rn, account_id) - 1 as k from candidates
  ), chosen as (
    select r.id, r.priority, p.first_slot + r.k * p.slot * interval '1 second' as run_at
      from ranked r cross join pace p
     where r.k < ?::int - (select count(*) from jobs j where j.batch_id is not null and j.dispatched and j.status in ('queued', 'running'))
       and p.first_slot + r.k * p.slot * interval '1 second' <= (select now from clock) + ?::float8 * interval '1 second'
  ), locked as (
    select j.id from jobs j where j.id in (select id from chosen) and j.status = 'queued' and not j.dispatched order by j.id for update skip locked
  ), marked as (
    update jobs j set dispatched = true from locked l where j.id = l.id returning j.id
  ), queued as (
    insert into graphile_worker._private_jobs (task_id, payload, max_attempts, priority, run_at)
    select (select id from task), json_build_object('jobId', m.id::text), 1, c.priority, c.run_at
      from marked m join chosen c on c.id = m.id
    returning run_at
  )
  select count(*)::int as n,
         extract(epoch from greatest((select first_slot from pace), max(run_at) + (select slot from pace) * interval '1 second')
                            - (select now from clock))::float8 as ahead
    from queued`

interface Feeder {
  running: Promise<void> | null
  again: boolean
  /** Date.now() before which a feed would find the lane's slots taken: feeds until then are skipped */
  pacedUntil: number
  /** a worker's feed at pacedUntil (startFeeding), so the lane keeps its pace between item endings */
  wake: NodeJS.Timeout | null
  wakes: boolean
}
const feeders = new WeakMap<Services, Feeder>()

function feederOf(services: Services): Feeder {
  let f = feeders.get(services)
  if (!f) feeders.set(services, (f = { running: null, again: false, pacedUntil: 0, wake: null, wakes: false }))
  return f
}

/**
 * Feeds waiting items now; calls while a feed runs make one more feed after it (which sees their endings), so
 * a worker ending many items at once feeds a few times, not once per item. While the pace has handed out the
 * lane's slots more than half the horizon ahead, calls do nothing (a feed could hand out only a few items), and a
 * worker feeds again once half the horizon has passed. Never throws: a failed feed is logged and the next one (the
 * timer's at the latest) does its work.
 */
export function feedBatches(services: Services): Promise<void> {
  const feeder = feederOf(services)
  if (feeder.running) {
    feeder.again = true
    return feeder.running
  }
  if (Date.now() < feeder.pacedUntil) return Promise.resolve()
  const { accountConcurrency, concurrency, itemsPerSecond } = services.config.batches
  feeder.running = (async () => {
    do {
      feeder.again = false
      await services.db
        .tx(async (q) => {
          // One feeder at a time, so that the shares and the slots are exact.
          await q.sql(`select pg_advisory_xact_lock(hashtext('feed_batch_items'))`)
          // graphile-worker knows a task once a worker or add_job has named it (as add_job does).
          await q.sql(`insert into graphile_worker._private_tasks (identifier) values (?) on conflict do nothing`, [BATCH_ITEM_TASK])
          const params = [1 / itemsPerSecond, BATCH_ITEM_TASK, accountConcurrency, concurrency, PACE_HORIZON_SECONDS]
          const [fed] = await q.sql<{ n: number; ahead: number }>(FEED, params)
          if (fed!.n > 0) await q.sql(`select pg_notify('jobs:insert', ?)`, [JSON.stringify({ r: Math.random(), count: fed!.n })])
          paced(services, feeder, fed!.ahead - PACE_HORIZON_SECONDS / 2)
        })
        .catch((e: Error) => services.log(`[batches] feeding: ${e.message}`))
    } while (feeder.again && Date.now() >= feeder.pacedUntil)
    feeder.running = null
  })()
  return feeder.running
}

/** The lane's slots are taken for `seconds` more: skip feeds until then, and a worker feeds then. */
function paced(services: Services, feeder: Feeder, seconds: number): void {
  if (seconds <= 0) return
  feeder.pacedUntil = Date.now() + seconds * 1000
  if (!feeder.wakes) return
  if (feeder.wake) clearTimeout(feeder.wake)
  feeder.wake = setTimeout(() => {
    feeder.wake = null
    void feedBatches(services)
  }, seconds * 1000)
  feeder.wake.unref()
}

/** A worker's feeding timer (every WORKER_HEARTBEAT_SECONDS); returns its stop. */
export function startFeeding(services: Services): () => Promise<void> {
  const feeder = feederOf(services)
  feeder.wakes = true
  const timer = setInterval(() => void feedBatches(services), services.config.worker.heartbeatSeconds * 1000)
  timer.unref()
  return async () => {
    clearInterval(timer)
    feeder.wakes = false
    if (feeder.wake) clearTimeout(feeder.wake)
    feeder.wake = null
    await feeder.running
  }
}
