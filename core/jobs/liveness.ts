// Worker liveness (migration 0017). Every worker process registers under graphile-worker's pool id (the
// locked_by of every job it fetched) and heartbeats on a timer; on the same timer it returns the jobs of dead
// workers to the queue and fails the running jobs whose lease ran out. A job a dead worker had only fetched then
// runs on another worker within WORKER_DEAD_AFTER_SECONDS; one it had started ends `worker_lost` (C7: the
// uncertain model call is never repeated), since its claim (core/jobs/run-task.ts) only takes a queued job.
// Every other task tolerates a second run the same way (a delivery re-checks it is pending and keeps its
// webhook-id, an auto-recharge keeps its Stripe idempotency key).
import { hostname } from 'node:os'
import type pg from 'pg'
import type { Query } from '../db/database.ts'
import type { Services } from '../services.ts'
import { failLostJobs } from './stale.ts'

/** A worker process as it registers: its pool id and what it may hold. */
export interface WorkerIdentity {
  id: string
  concurrency: number
  prefetch: number
}

export interface Recovery {
  workerId: string
  /** false: a lock holder that never registered */
  registered: boolean
  lastHeartbeatAt: string | null
  jobsReturned: number
}

/** Deregisters every dead worker and returns its jobs to the queue (recover_dead_workers, migration 0017). */
export async function recoverDeadWorkers(db: Query, by: string): Promise<Recovery[]> {
  const rows = await db.sql<{ worker_id: string; registered: boolean; last_heartbeat_at: string | null; jobs_returned: number }>(
    `select * from recover_dead_workers(?)`,
    [by],
  )
  return rows.map((r) => ({
    workerId: r.worker_id,
    registered: r.registered,
    lastHeartbeatAt: r.last_heartbeat_at && new Date(r.last_heartbeat_at).toISOString(),
    jobsReturned: r.jobs_returned,
  }))
}

export interface Liveness {
  /** Stops the timer, deregisters, and returns whatever the worker still holds (call once its jobs have stopped). */
  stop(): Promise<void>
}

/**
 * Registers the worker and heartbeats every WORKER_HEARTBEAT_SECONDS on `pool` (graphile-worker's own, so a
 * busy application pool never delays a heartbeat). Recovery waits until this worker has heartbeated twice in a
 * row: after a database outage every live worker gets a heartbeat in before anyone is judged by its old one.
 */
export function startLiveness(services: Services, pool: pg.Pool, me: WorkerIdentity): Liveness {
  const { heartbeatSeconds, deadAfterSeconds } = services.config.worker
  let streak = 0
  let registered = false
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const heartbeat = async () => {
    const { rows } = await pool.query<{ inserted: boolean }>(
      `insert into workers (id, host, pid, concurrency, prefetch, dead_after) values ($1, $2, $3, $4, $5, make_interval(secs => $6))
       on conflict (id) do update set heartbeat_at = now() returning xmax = 0 as inserted`,
      [me.id, hostname(), process.pid, me.concurrency, me.prefetch, deadAfterSeconds],
    )
    if (rows[0]?.inserted && registered)
      services.log(`[worker] ${me.id} was taken for dead (no heartbeat for ${deadAfterSeconds} s) and its jobs returned; registered again`)
    registered = true
  }
  const tick = async () => {
    try {
      await heartbeat()
      streak++
    } catch (e) {
      streak = 0
      services.log(`[worker] heartbeat: ${(e as Error).message}`)
      return
    }
    if (streak < 2) return
    try {
      for (const r of await recoverDeadWorkers(services.db, me.id))
        services.log(
          `[worker] returned ${r.jobsReturned} jobs of dead worker ${r.workerId} (last heartbeat ${r.lastHeartbeatAt ?? 'never'})`,
        )
      await failLostJobs(services, services.now())
    } catch (e) {
      services.log(`[worker] recovery: ${(e as Error).message}`)
    }
  }
  let running: Promise<void> = Promise.resolve()
  const loop = () => {
    running = tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, heartbeatSeconds * 1000)
    })
  }
  loop()
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
      // The runner has stopped: anything still locked under its id (a local queue it could not return) is free.
      await pool.query(`delete from workers where id = $1`, [me.id])
      await pool.query(`select release_worker_jobs(array[$1::text])`, [me.id])
    },
  }
}
