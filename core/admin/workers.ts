// The worker registry as the operator sees it (GET /admin/workers, `npm run admin -- workers`): every registered
// worker with its last heartbeat and the queue entries it holds per task, the entries held by dead workers, and the
// last recoveries (core/jobs/liveness.ts, migration 0017). One statement, so the parts agree with each other.
import type { Query } from '../db/database.ts'

export async function workerRegistry(db: Query) {
  const [row] = await db.sql(
    `select
       (select coalesce(json_agg(w order by w.started_at), '[]') from (
          select w.id, w.host, w.pid, w.concurrency, w.prefetch, w.started_at, w.heartbeat_at,
                 w.heartbeat_at >= now() - w.dead_after as alive,
                 extract(epoch from w.dead_after)::float8 as dead_after_seconds,
                 (select count(*) from graphile_worker._private_jobs j where j.locked_by = w.id)::int as locked_jobs,
                 (select coalesce(json_object_agg(t.identifier, n), '{}') from (
                    select j.task_id, count(*)::int as n from graphile_worker._private_jobs j where j.locked_by = w.id group by j.task_id
                  ) c join graphile_worker._private_tasks t on t.id = c.task_id) as locked_by_task
            from workers w) w) as workers,
       (select count(*)::int from graphile_worker._private_jobs j where j.locked_by in (select worker_id from dead_lock_holders())) as locked_by_dead,
       (select coalesce(json_agg(r order by r.recovered_at desc), '[]') from (
          select worker_id, registered, last_heartbeat_at, jobs_returned, recovered_by, recovered_at
            from worker_recoveries order by recovered_at desc limit 20) r) as recoveries,
       (select count(*)::int from worker_recoveries) as recoveries_total,
       (select coalesce(sum(jobs_returned), 0)::int from worker_recoveries) as jobs_returned_total`,
  )
  const iso = (t: string | null) => (t ? new Date(t).toISOString() : null)
  type WorkerRow = {
    id: string
    host: string
    pid: number
    concurrency: number
    prefetch: number
    started_at: string
    heartbeat_at: string
    alive: boolean
    dead_after_seconds: number
    locked_jobs: number
    locked_by_task: Record<string, number>
  }
  type RecoveryRow = {
    worker_id: string
    registered: boolean
    last_heartbeat_at: string | null
    jobs_returned: number
    recovered_by: string
    recovered_at: string
  }
  return {
    workers: (row!.workers as WorkerRow[]).map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      concurrency: w.concurrency,
      prefetch: w.prefetch,
      startedAt: iso(w.started_at),
      lastHeartbeatAt: iso(w.heartbeat_at),
      alive: w.alive,
      deadAfterSeconds: w.dead_after_seconds,
      lockedJobs: w.locked_jobs,
      lockedJobsByTask: w.locked_by_task,
    })),
    jobsLockedByDeadWorkers: row!.locked_by_dead as number,
    recoveries: (row!.recoveries as RecoveryRow[]).map((r) => ({
      workerId: r.worker_id,
      registered: r.registered,
      lastHeartbeatAt: iso(r.last_heartbeat_at),
      jobsReturned: r.jobs_returned,
      recoveredBy: r.recovered_by,
      recoveredAt: iso(r.recovered_at),
    })),
    recoveriesTotal: row!.recoveries_total as number,
    jobsReturnedTotal: row!.jobs_returned_total as number,
  }
}
