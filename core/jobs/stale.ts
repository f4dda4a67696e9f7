// The jobs part of the maintenance pass (C7): fails what no worker will finish (past the 24 h deadline, or a
// running job whose worker's lease ran out), drops inputs no job needs and finished jobs past retention.
import type { Services } from '../services.ts'
import { failJob, type FailGuard } from './end.ts'
import type { JobError } from './view.ts'

const DEADLINE_HOURS = 24
const RETENTION_DAYS = 30

export interface StaleJobsReport {
  workerLost: number
  deadlineExceeded: number
  inputsDeleted: number
  jobsRemoved: number
}

// All at once, so that they are written in groups (core/jobs/end.ts).
async function failAll(services: Services, ids: { id: string }[], error: JobError, guard: FailGuard): Promise<number> {
  return (await Promise.all(ids.map(({ id }) => failJob(services, id, error, guard)))).filter(Boolean).length
}

/**
 * Fails the running jobs whose worker stopped renewing their lease: the model call may have been made, so the
 * job is never run again (C7). Run by the maintenance pass and by every live worker on its liveness timer.
 */
export async function failLostJobs(services: Services, now: Date): Promise<number> {
  return failAll(
    services,
    await services.db.sql(`select id from jobs where status = 'running' and lease_until < ?`, [now]),
    {
      code: 'worker_lost',
      message: 'The worker running this job stopped; the uncertain model call is not repeated and nothing was charged.',
    },
    { statuses: ['running'], leaseExpiredBy: now },
  )
}

export async function failStaleJobs(services: Services, now: Date): Promise<StaleJobsReport> {
  const deadline = new Date(now.getTime() - DEADLINE_HOURS * 3600_000)
  const deadlineExceeded = await failAll(
    services,
    await services.db.sql(`select id from jobs where status in ('queued', 'running') and created_at <= ?`, [deadline]),
    { code: 'deadline_exceeded', message: 'The job did not finish within 24 hours; nothing was charged.' },
    { statuses: ['queued', 'running'] },
  )
  const workerLost = await failLostJobs(services, now)
  // Several rows at once, so locked in id order first (docs/locking.md).
  const inputs = await services.db.sql(
    `delete from job_inputs where job_id in (
       select i.job_id from job_inputs i join jobs j on j.id = i.job_id
        where j.status in ('succeeded', 'failed') or j.created_at <= ? order by i.job_id for update of i)
     returning job_id`,
    [deadline],
  )
  // A batch's items go with their batch (core/batches/retention.ts), so its results never lose their first lines.
  const removed = await services.db.sql(
    `delete from jobs where id in (
       select id from jobs where status in ('succeeded', 'failed') and finished_at <= ? and batch_id is null order by id for update)
     returning id`,
    [new Date(now.getTime() - RETENTION_DAYS * 86400_000)],
  )
  return { workerLost, deadlineExceeded, inputsDeleted: inputs.length, jobsRemoved: removed.length }
}
