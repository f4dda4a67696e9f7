// The graphile-worker runner: capability jobs, webhook deliveries, auto-recharge, and maintenance on MAINTENANCE_SCHEDULE
// (every 5 minutes unless set; graphile-worker's cron runs each tick once whatever the number of workers). The runner
// is registered and heartbeats while it runs (core/jobs/liveness.ts), so a crash costs seconds, not 4 hours.
import { EventEmitter } from 'node:events'
import { parseCronItems, run, type Runner, type WorkerEvents } from 'graphile-worker'
import pg from 'pg'
import { AUTO_RECHARGE_TASK, autoRechargeTask } from './billing/billing.ts'
import { quietLogger } from './db/database.ts'
import { jobSpans } from './observability/tracing.ts'
import type { Services } from './services.ts'
import { deliverTask, DELIVER_TASK } from './webhooks/webhooks.ts'
import { startLiveness } from './jobs/liveness.ts'
import { RUN_TASK, runCapabilityTask } from './jobs/run-task.ts'
import { MAINTENANCE_TASK, runMaintenance } from './maintenance.ts'

/** A running worker: graphile-worker's runner, under the id it registered (its pool id, the locked_by of its jobs). */
export type WorkerRunner = Runner & { id: string }

export async function startWorker(
  services: Services,
  opts: { concurrency?: number; prefetch?: number; gracefulShutdownMs?: number } = {},
): Promise<WorkerRunner> {
  // A job's own time is mostly waiting (the model, durable commits), so more jobs in flight per process
  // raise throughput without much CPU; and the more are in flight, the larger the groups their claims and
  // endings are written in (16 → 64: 0.47 → 0.14 transactions per job, BENCHMARKS.md). WORKER_CONCURRENCY.
  const concurrency = opts.concurrency ?? services.config.worker.concurrency
  // Jobs fetched (and locked) ahead of the free slots, in one round trip: what a crash strands until the
  // liveness timer of another worker returns them (WORKER_PREFETCH; docs/deploy.md weighs it against jobs/s).
  const prefetch = opts.prefetch ?? services.config.worker.prefetch
  // Our own pool, so that a connection dropped by the server is logged rather than crashing the process. Jobs
  // do not hold its connections (the local queue fetches, completions are batched, our tasks use services.db),
  // so it stays small whatever the concurrency: two workers never approach the server's max_connections.
  const pgPool = new pg.Pool({ connectionString: services.db.url, max: 8 })
  const lost = (e: Error) => services.log(`[worker] database connection lost: ${e.message}`)
  pgPool.on('error', lost)
  pgPool.on('connect', (client) => client.on('error', lost))
  // graphile-worker names the pool (the locked_by of its jobs) while run() builds it: the event is the way to learn it.
  const events = new EventEmitter() as WorkerEvents
  let poolId = ''
  events.once('pool:create', ({ workerPool }) => (poolId = workerPool.id))
  const runner = await run({
    pgPool,
    events,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    preset: {
      worker: {
        // Jobs are fetched (and locked) in batches instead of one get_job round trip per job, and completions
        // of the same tick are written together. A job run twice after a crash is harmless: the task claims
        // its row only while it is 'queued' (core/jobs/run-task.ts), so money moves at most once.
        localQueue: { size: prefetch > 0 ? prefetch : -1 },
        completeJobBatchDelay: 0,
      },
    },
    logger: quietLogger,
    gracefulShutdownAbortTimeout: opts.gracefulShutdownMs ?? 30_000,
    taskList: jobSpans({
      [RUN_TASK]: runCapabilityTask(services),
      [DELIVER_TASK]: deliverTask(services),
      [AUTO_RECHARGE_TASK]: autoRechargeTask(services),
      [MAINTENANCE_TASK]: async () => {
        const report = await runMaintenance(services)
        services.log(`[maintenance] ${JSON.stringify(report)}`)
      },
    }),
    parsedCronItems: parseCronItems(
      services.config.maintenanceSchedule
        ? [{ task: MAINTENANCE_TASK, match: services.config.maintenanceSchedule, options: { backfillPeriod: 0, maxAttempts: 1 } }]
        : [],
    ),
  })
  const liveness = startLiveness(services, pgPool, { id: poolId, concurrency, prefetch })
  // The heartbeat lasts exactly as long as the runner: one that stopped by itself (a fatal error) stops
  // heartbeating, so the other workers take its jobs; one stopped gracefully deregisters and gives back what it
  // still holds. (graphile-worker 0.18 returns a local queue with jobs waiting at shutdown without awaiting it, and
  // logs "Cannot background something when the queue is already released": the entries are freed here anyway.)
  const closed = runner.promise
    .catch(() => {})
    .then(() => liveness.stop())
    .catch((e: Error) => services.log(`[worker] deregistering ${poolId}: ${e.message}`))
    .finally(() => pgPool.end().catch(() => {}))
  const stop = async (reason?: string) => {
    await runner.stop(reason)
    await closed
  }
  return { ...runner, id: poolId, stop, [Symbol.asyncDispose]: stop }
}
