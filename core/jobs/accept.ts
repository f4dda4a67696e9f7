// Acceptance of an async call (C7): the hold, the job row, its input, the graphile-worker job and the idempotency
// record commit in one statement (accept_job, migrations 0011 and 0013), so a 202 always has a job that will run and
// nothing is queued without one.
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import { IDEMPOTENCY_WINDOW_HOURS } from '../idempotency/idempotency.ts'
import { money, traceparent } from '../observability/tracing.ts'
import type { Services } from '../services.ts'
import type { ReserveArgs, ReserveOutcome } from '../wallet/wallet.ts'
import { RUN_TASK } from './run-task.ts'
import type { CallbackWarning, JobAccepted } from './view.ts'

export type AcceptOutcome = { outcome: 'accepted'; body: string } | Exclude<ReserveOutcome, { outcome: 'ok' }>

type AcceptRow = {
  outcome: 'ok' | 'replay' | 'in_use' | 'reused' | 'insufficient' | 'spend_cap'
  status: number
  body: string
  available: string | null
}

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
  const [row] = await money(services.db).sql<AcceptRow>(
    `select * from accept_job(?, ?, ?, ?, ?, ?, ?, ?::interval, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb)`,
    [
      a.accountId,
      a.keyId,
      a.price,
      a.endpoint,
      a.requestId,
      a.idempotency?.key ?? null,
      a.idempotency?.fingerprint ?? null,
      `${IDEMPOTENCY_WINDOW_HOURS} hours`,
      a.now,
      jobId,
      JSON.stringify(a.input),
      a.callbackUrl,
      RUN_TASK,
      body,
      traceparent(), // the job's span links to this request (core/observability/tracing.ts)
      a.size ? JSON.stringify(a.size) : null,
    ],
  )
  if (!row) throw new Error('accept_job returned nothing')
  if (row.outcome === 'ok') return { outcome: 'accepted', body }
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status, body: row.body }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome }
}
