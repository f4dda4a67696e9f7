// The two ways a started job ends (C7): completeJob captures its hold, failJob releases it. Either way the job
// row, the money, the deleted input and the terminal event commit together, and only for a job still in the
// state the caller expects, so a job ends exactly once. Endings that arrive while a group is being written are
// written together in one transaction (core/jobs/batch.ts): one durable commit for many jobs.
import type { JobEventName, Services } from '../services.ts'
import { capture, release } from '../wallet/wallet.ts'
import { batched } from './batch.ts'
import type { JobError } from './view.ts'

/** Which jobs a failure may end: by status, and for a lost worker only once its lease has run out. */
export interface FailGuard {
  statuses: readonly ('queued' | 'running')[]
  leaseExpiredBy?: Date
}

type Ending = { jobId: string } & ({ result: object } | { error: JobError; guard: FailGuard })

/** Succeeds a running job with the capability's checked result; false when it had already ended. */
export function completeJob(services: Services, jobId: string, result: object): Promise<boolean> {
  return ender(services)({ jobId, result })
}

/** Fails a job free of charge: the one failure path of the task, the deadline and a lost worker. */
export function failJob(services: Services, jobId: string, error: JobError, guard: FailGuard): Promise<boolean> {
  return ender(services)({ jobId, error, guard })
}

const enders = new WeakMap<Services, (e: Ending) => Promise<boolean>>()
function ender(services: Services) {
  let end = enders.get(services)
  if (!end) enders.set(services, (end = batched((endings: Ending[]) => endJobs(services, endings))))
  return end
}

interface Locked {
  id: string
  hold_id: string
  account_id: string
  status: string
  lease_ms: number | null
}

async function endJobs(services: Services, endings: Ending[]): Promise<boolean[]> {
  return services.db.tx(async (q) => {
    const now = services.now()
    // Rows locked in id order and money moved in account order: two groups never wait on each other in a cycle.
    const rows = await q.sql<Locked>(
      `select id, hold_id, account_id, status, extract(epoch from lease_until) * 1000 as lease_ms
         from jobs where id = any(?::uuid[]) order by id for update`,
      [endings.map((e) => e.jobId)],
    )
    const byId = new Map(rows.map((r) => [r.id, r]))
    const ended: { ending: Ending; job: Locked }[] = []
    for (const ending of endings) {
      const job = byId.get(ending.jobId)
      if (!job || !mayEnd(job, ending)) continue
      ended.push({ ending, job })
      job.status = 'ended' // a second ending of the same job in this group finds it ended
    }
    ended.sort((a, b) => a.job.account_id.localeCompare(b.job.account_id))
    const set: { id: string; status: string; result: string | null; error: string | null; event: JobEventName }[] = []
    for (const { ending, job } of ended) {
      if ('result' in ending) {
        const { body } = await capture(q, job.hold_id, ending.result, null, now)
        set.push({ id: job.id, status: 'succeeded', result: body, error: null, event: 'job.completed' })
      } else {
        await release(q, job.hold_id, null)
        set.push({ id: job.id, status: 'failed', result: null, error: JSON.stringify(ending.error), event: 'job.failed' })
      }
    }
    if (set.length) {
      await q.sql(
        `update jobs j set status = v.status, result = v.result, error = v.error::jsonb, finished_at = ?, updated_at = ?, lease_until = null
           from unnest(?::uuid[], ?::text[], ?::text[], ?::text[]) as v (id, status, result, error) where j.id = v.id`,
        [now, now, set.map((s) => s.id), set.map((s) => s.status), set.map((s) => s.result), set.map((s) => s.error)],
      )
      await q.sql(`delete from job_inputs where job_id = any(?::uuid[])`, [set.map((s) => s.id)])
      for (const s of set) for (const listener of services.jobEvents ?? []) await listener(s.event, s.id, q)
    }
    const done = new Set(ended.map((x) => x.ending))
    return endings.map((e) => done.has(e))
  })
}

function mayEnd(job: Locked, ending: Ending): boolean {
  if ('result' in ending) return job.status === 'running'
  const { statuses, leaseExpiredBy } = ending.guard
  if (!(statuses as readonly string[]).includes(job.status)) return false
  return !leaseExpiredBy || (job.lease_ms !== null && Number(job.lease_ms) < leaseExpiredBy.getTime())
}
