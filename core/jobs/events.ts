// The job events (C17): job.completed and job.failed, recorded in the event log in the transaction that ends the job
// (a test key's job: livemode false), with the Job object as their data, as the published document says.
import type { KeyMode } from '../http/caller.ts'
import { emitEvents } from '../events/emit.ts'
import type { EventTypeInfo } from '../events/types.ts'
import type { JobEventName, JobEvents, Services } from '../services.ts'
import { JobView, jobView } from './view.ts'

/** The job event types with their data (published in the document's webhooks beside core/events' types). */
export const JOB_EVENT_TYPES = {
  'job.completed': {
    data: JobView,
    summary: 'An async job succeeded; data is the Job object (also POSTed to the call’s own callbackUrl).',
    example: {
      jobId: '01890000-0000-7000-8000-000000000001',
      endpoint: '/v1/parse',
      status: 'succeeded',
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-05T10:00:04.000Z',
      startedAt: '2026-01-05T10:00:01.000Z',
      finishedAt: '2026-01-05T10:00:04.000Z',
      requestId: 'req_01HZX3',
      livemode: true,
    },
  },
  'job.failed': {
    data: JobView,
    summary: 'An async job failed, free; data is the Job object.',
    example: {
      jobId: '01890000-0000-7000-8000-000000000001',
      endpoint: '/v1/parse',
      status: 'failed',
      createdAt: '2026-01-05T10:00:00.000Z',
      updatedAt: '2026-01-05T10:00:04.000Z',
      startedAt: '2026-01-05T10:00:01.000Z',
      finishedAt: '2026-01-05T10:00:04.000Z',
      requestId: 'req_01HZX3',
      livemode: true,
      error: 'The model provider failed; nothing was charged.',
      errorCode: 'inference_failed',
    },
  },
} as const satisfies Record<JobEventName, EventTypeInfo>

/** Subscribes to job endings (the seam of core/jobs): one event per ended job, in the ending's transaction. */
export function jobEventListener(services: Services): JobEvents {
  return async (events, q) => {
    const jobs = await q.sql<{ id: string; account_id: string; mode: KeyMode }>(
      `select * from jobs where id = any(?::uuid[]) and batch_id is null`,
      [events.map((e) => e.jobId)],
    )
    const byId = new Map(jobs.map((j) => [j.id, j]))
    await emitEvents(
      q,
      events.flatMap(({ event, jobId }) => {
        const job = byId.get(jobId)
        return job ? [{ accountId: job.account_id, type: event, livemode: job.mode === 'live', data: jobView(job) }] : []
      }),
      services.now(),
    )
  }
}
