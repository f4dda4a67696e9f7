// Batch items wait in the jobs table (queued, not dispatched) and are handed to graphile-worker a bounded
// number at a time (FEED below): each account up to BATCH_ACCOUNT_CONCURRENCY items in flight, all accounts up to
// BATCH_CONCURRENCY, round robin across accounts, window `24h` behind async jobs in graphile-worker's priority. So a 10,000-item batch never fills the queue ahead of anyone's async jobs nor of
// another account's batch. The feeder runs after acceptance, after each item ends (the item's task), and on
// every worker's timer, so a process killed between an ending and its feed delays nothing for long.
import type { JobHelpers } from 'graphile-worker'
import { runCapabilityTask } from '../jobs/run-task.ts'
import type { Services } from '../services.ts'

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
 * to its share (the oldest batch first, in item order); one item per account per round up to the total; those rows
 * locked (in id order, skipping any a cancel or an ending holds, never waiting) and handed out. Parameters: the
 * share, the total, the task.
 */
const FEED = `
  with in_flight as (
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
  ), chosen as (
    select id, priority from candidates
     order by n + rn, account_id
     limit greatest(0, ?::int - (select count(*) from jobs j where j.batch_id is not null and j.dispatched and j.status in ('queued', 'running')))
  ), locked as (
    select j.id from jobs j where j.id in (select id from chosen) and j.status = 'queued' and not j.dispatched order by j.id for update skip locked
  ), marked as (
    update jobs j set dispatched = true from locked l where j.id = l.id returning j.id
  ), queued as (
    insert into graphile_worker._private_jobs (task_id, payload, max_attempts, priority)
    select t.id, json_build_object('jobId', m.id::text), 1, c.priority
      from marked m join chosen c on c.id = m.id cross join graphile_worker._private_tasks t where t.identifier = ?
    returning 1
  )
  select count(*)::int as n from queued`

interface Feeder {
  running: Promise<void> | null
  again: boolean
}
const feeders = new WeakMap<Services, Feeder>()

/**
 * Feeds waiting items now; calls while a feed runs make one more feed after it (which sees their endings), so
 * a worker ending many items at once feeds a few times, not once per item. Never throws: a failed feed is
 * logged and the next one (the timer's at the latest) does its work.
 */
export function feedBatches(services: Services): Promise<void> {
  let f = feeders.get(services)
  if (!f) feeders.set(services, (f = { running: null, again: false }))
  const feeder = f
  if (feeder.running) {
    feeder.again = true
    return feeder.running
  }
  const { accountConcurrency, concurrency } = services.config.batches
  feeder.running = (async () => {
    do {
      feeder.again = false
      await services.db
        .tx(async (q) => {
          // One feeder at a time, so that the shares are exact.
          await q.sql(`select pg_advisory_xact_lock(hashtext('feed_batch_items'))`)
          // graphile-worker knows a task once a worker or add_job has named it (as add_job does).
          await q.sql(`insert into graphile_worker._private_tasks (identifier) values (?) on conflict do nothing`, [BATCH_ITEM_TASK])
          const [fed] = await q.sql<{ n: number }>(FEED, [accountConcurrency, concurrency, BATCH_ITEM_TASK])
          if (fed!.n > 0) await q.sql(`select pg_notify('jobs:insert', ?)`, [JSON.stringify({ r: Math.random(), count: fed!.n })])
        })
        .catch((e: Error) => services.log(`[batches] feeding: ${e.message}`))
    } while (feeder.again)
    feeder.running = null
  })()
  return feeder.running
}

/** A worker's feeding timer (every WORKER_HEARTBEAT_SECONDS); returns its stop. */
export function startFeeding(services: Services): () => Promise<void> {
  const timer = setInterval(() => void feedBatches(services), services.config.worker.heartbeatSeconds * 1000)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await feeders.get(services)?.running
  }
}
