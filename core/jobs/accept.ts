// Acceptance of an async call (C7): the hold, the job row, its input, the graphile-worker job and the idempotency
// record commit in one statement (the wallet's acceptWithHold), so a 202 always has a job that will run and
// nothing is queued without one.
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import { traceparent } from '../observability/tracing.ts'
import type { Services } from '../services.ts'
import { acceptWithHold, type HeldAcceptance } from '../wallet/jobs.ts'
import type { ReserveArgs } from '../wallet/wallet.ts'
import { RUN_TASK } from './run-task.ts'
import type { CallbackWarning, JobAccepted } from './view.ts'

export type AcceptOutcome = { outcome: 'accepted'; body: string } | Exclude<HeldAcceptance, { outcome: 'ok' }>

export async function acceptJob(
  services: Services,
  a: Omit<ReserveArgs, 'holdTtlSeconds'> & { input: Record<string, unknown>; callbackUrl: string | null; warnings?: CallbackWarning[] },
): Promise<AcceptOutcome> {
  const jobId = randomUUID()
  const accepted: Static<typeof JobAccepted> = {
    jobId,
    status: 'queued',
    requestId: a.requestId,
    livemode: true,
    credits: { held: a.price },
    ...(a.warnings?.length ? { warnings: a.warnings } : {}),
  }
  const body = JSON.stringify(accepted)
  const outcome = await acceptWithHold(services.db, {
    ...a,
    jobId,
    task: RUN_TASK,
    accepted: body,
    traceparent: traceparent(), // the job's span links to this request (core/observability/tracing.ts)
  })
  return outcome.outcome === 'ok' ? { outcome: 'accepted', body } : outcome
}
