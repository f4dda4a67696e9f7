// The two ways a started job ends (C7), each in one transaction with its money: completeJob captures the hold,
// failJob releases it. Both delete the stored input and emit the terminal event in that same transaction, and
// both act only on a job still in the state the caller expects, so a job ends exactly once.
import type { Query } from '../db/database.ts'
import type { JobEventName, Services } from '../services.ts'
import { capture, release } from '../wallet/wallet.ts'
import type { JobError } from './view.ts'

/** Which jobs a failure may end: by status, and for a lost worker only once its lease has run out. */
export interface FailGuard {
  statuses: readonly ('queued' | 'running')[]
  leaseExpiredBy?: Date
}

/** Succeeds a running job with the capability's checked result; false when it had already ended. */
export async function completeJob(services: Services, jobId: string, result: object): Promise<boolean> {
  return services.db.tx(async (q) => {
    const now = services.now()
    const [job] = await q.sql<{ hold_id: string }>(`select hold_id from jobs where id = ? and status = 'running' for update`, [jobId])
    if (!job) return false // maintenance already failed it (lease lost): its hold is released, nothing to charge
    const { body } = await capture(q, job.hold_id, result, null, now)
    await close(services, q, jobId, 'job.completed', { status: 'succeeded', result: body, error: null }, now)
    return true
  })
}

/** Fails a job free of charge: the one failure path of the task, the deadline and a lost worker. */
export async function failJob(services: Services, jobId: string, error: JobError, guard: FailGuard): Promise<boolean> {
  return services.db.tx(async (q) => {
    const now = services.now()
    const [job] = await q.sql<{ hold_id: string }>(
      `select hold_id from jobs where id = ? and status = any(?::text[]) and (?::timestamptz is null or lease_until < ?) for update`,
      [jobId, `{${guard.statuses.join(',')}}`, guard.leaseExpiredBy ?? null, guard.leaseExpiredBy ?? null],
    )
    if (!job) return false
    await release(q, job.hold_id, null)
    await close(services, q, jobId, 'job.failed', { status: 'failed', result: null, error: JSON.stringify(error) }, now)
    return true
  })
}

async function close(
  services: Services,
  q: Query,
  jobId: string,
  event: JobEventName,
  end: { status: 'succeeded' | 'failed'; result: string | null; error: string | null },
  now: Date,
) {
  await q.sql(
    `update jobs set status = ?, result = ?, error = ?::jsonb, finished_at = ?, updated_at = ?, lease_until = null where id = ?`,
    [end.status, end.result, end.error, now, now, jobId],
  )
  await q.sql(`delete from job_inputs where job_id = ?`, [jobId])
  for (const listener of services.jobEvents ?? []) await listener(event, jobId, q)
}
