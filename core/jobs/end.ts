// The two ways a started job ends (C7): completeJob captures its hold, failJob releases it. Either way the job
// row, the money, the deleted input and the terminal event commit together, and only for a job still in the
// state the caller expects, so a job ends exactly once. Endings that arrive while a group is being written are
// written together in one transaction (core/jobs/batch.ts): one durable commit for many jobs.
import type { Services } from '../services.ts'
import { batched } from './batch.ts'
import type { JobError } from './view.ts'
import { settleJobs } from '../wallet/jobs.ts'

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

async function endJobs(services: Services, endings: Ending[]): Promise<boolean[]> {
  return services.db.tx(async (q) => {
    // The checks, the money and the rows in one statement.
    const ended = await settleJobs(q, endings, services.now())
    const events = ended.map((e) => ({
      event: e.status === 'succeeded' ? ('job.completed' as const) : ('job.failed' as const),
      jobId: e.jobId,
    }))
    if (events.length) for (const listener of services.jobEvents ?? []) await listener(events, q)
    const done = new Set(ended.map((e) => e.index))
    return endings.map((_, i) => done.has(i))
  })
}
