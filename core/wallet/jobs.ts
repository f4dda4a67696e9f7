// The money statements of async jobs (C7): acceptance places the hold with the job, an ending captures or releases
// it with the job's row. Each is one statement (core/wallet/sql/accept_job.sql, end_jobs.sql); core/jobs/ decides
// what to accept and how a job ends.
import type { Query } from '../db/database.ts'
import { IDEMPOTENCY_WINDOW_HOURS } from '../idempotency/idempotency.ts'
import { money } from '../observability/tracing.ts'
import type { ReserveArgs, ReserveOutcome } from './wallet.ts'

export interface AcceptWithHoldArgs extends Omit<ReserveArgs, 'holdTtlSeconds'> {
  jobId: string
  input: Record<string, unknown>
  callbackUrl: string | null
  /** The graphile-worker task that runs the job. */
  task: string
  /** The 202's body, recorded under the Idempotency-Key. */
  accepted: string
  /** The accepting request's trace, which the job's span links to (null when tracing is off). */
  traceparent: string | null
}

/** `ok`: the hold, the job, its input, its queue entry and the key's 202 committed together. */
export type HeldAcceptance = { outcome: 'ok' } | Exclude<ReserveOutcome, { outcome: 'ok' }>

type AcceptRow = {
  outcome: 'ok' | 'replay' | 'in_use' | 'reused' | 'insufficient' | 'spend_cap'
  status: number
  body: string
  available: string | null
}

export async function acceptWithHold(q: Query, a: AcceptWithHoldArgs): Promise<HeldAcceptance> {
  const [row] = await money(q).sql<AcceptRow>(
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
      a.jobId,
      JSON.stringify(a.input),
      a.callbackUrl,
      a.task,
      a.accepted,
      a.traceparent,
      a.size ? JSON.stringify(a.size) : null,
    ],
  )
  if (!row) throw new Error('accept_job returned nothing')
  if (row.outcome === 'ok') return { outcome: 'ok' }
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status, body: row.body }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome }
}

/**
 * How one job ends: a success with its checked result (without usage) captures the hold; a failure releases it,
 * only from the statuses its ender expects and, for a lost worker, only once the lease ran out by `leaseExpiredBy`.
 */
export type JobEnding =
  | { jobId: string; result: object }
  | { jobId: string; error: object; guard: { statuses: readonly string[]; leaseExpiredBy?: Date | undefined } }

/** The endings that ended their job, by their index in `endings`; a job named twice ends by its first ending only. */
export async function settleJobs(
  q: Query,
  endings: readonly JobEnding[],
  now: Date,
): Promise<Array<{ index: number; jobId: string; status: 'succeeded' | 'failed' }>> {
  const ended = await money(q).sql<{ ord: number; job_id: string; status: 'succeeded' | 'failed' }>(
    `select ord, job_id, status from end_jobs(?::uuid[], ?::text[], ?::jsonb[], ?::text[], ?::timestamptz[], ?)`,
    [
      endings.map((e) => e.jobId),
      endings.map((e) => ('result' in e ? JSON.stringify(e.result) : null)),
      endings.map((e) => ('error' in e ? JSON.stringify(e.error) : null)),
      endings.map((e) => ('result' in e ? 'running' : e.guard.statuses.join(','))),
      endings.map((e) => ('guard' in e ? (e.guard.leaseExpiredBy ?? null) : null)),
      now,
    ],
  )
  return ended.map((e) => ({ index: e.ord - 1, jobId: e.job_id, status: e.status }))
}
