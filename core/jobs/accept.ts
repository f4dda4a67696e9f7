// Acceptance of an async call (C7): the hold, the job row, its input, the graphile-worker job and the idempotency
// record commit in one transaction, so a 202 always has a job that will run and nothing is queued without one.
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import { recordAccepted } from '../idempotency/idempotency.ts'
import { traceparent } from '../observability/tracing.ts'
import type { Services } from '../services.ts'
import { reserve, type ReserveArgs, type ReserveOutcome } from '../wallet/wallet.ts'
import { RUN_TASK } from './run-task.ts'
import type { JobAccepted } from './view.ts'

export type AcceptOutcome = { outcome: 'accepted'; body: string } | Exclude<ReserveOutcome, { outcome: 'ok' }>

export async function acceptJob(
  services: Services,
  a: Omit<ReserveArgs, 'holdTtlSeconds'> & { input: Record<string, unknown>; callbackUrl: string | null },
): Promise<AcceptOutcome> {
  const jobId = randomUUID()
  const accepted: Static<typeof JobAccepted> = { jobId, status: 'queued', requestId: a.requestId }
  const body = JSON.stringify(accepted)
  return services.db.tx(async (q) => {
    const held = await reserve(q, { ...a, holdTtlSeconds: null })
    if (held.outcome !== 'ok') return held
    // The job row, its input and its graphile-worker job in one statement; max_attempts 1: a model call is
    // never blindly repeated (C7).
    await q.sql(
      `with job as (
         insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
         values (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?) returning id
       ), input as (insert into job_inputs (job_id, input) select id, ?::jsonb from job)
       select graphile_worker.add_job(?, json_strip_nulls(json_build_object('jobId', id::text, 'traceparent', ?::text)), max_attempts => 1) from job`,
      [
        jobId,
        a.accountId,
        a.keyId,
        a.endpoint,
        a.requestId,
        held.holdId,
        a.idempotency?.key ?? null,
        a.callbackUrl,
        a.now,
        a.now,
        JSON.stringify(a.input),
        RUN_TASK,
        traceparent(), // the job's span links to this request (core/observability/tracing.ts)
      ],
    )
    if (a.idempotency) await recordAccepted(q, a.accountId, a.idempotency.key, body)
    return { outcome: 'accepted' as const, body }
  })
}
