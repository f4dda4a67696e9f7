// Batch items wait in the jobs table (queued, not dispatched) and are handed to graphile-worker a bounded
// number at a time (feed_batch_items, migration 0026): each account up to BATCH_ACCOUNT_CONCURRENCY items in
// flight, all accounts up to BATCH_CONCURRENCY, round robin across accounts, window `24h` behind async jobs in
// graphile-worker's priority. So a 10,000-item batch never fills the queue ahead of anyone's async jobs nor of
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
        .sql(`select feed_batch_items(?, ?, ?)`, [accountConcurrency, concurrency, BATCH_ITEM_TASK])
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
