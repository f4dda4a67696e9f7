// The money statements of async work (C7, C19): acceptance places the hold with a job (accept_job) or with a batch's
// items (reserve_batch, which accept_job builds on: a job is a batch of one), and an ending captures or releases it
// with the job's row (end_jobs). Each is one statement (core/wallet/sql/); core/jobs/ and core/batches/ decide what
// to accept and how it ends.
import type { Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { IDEMPOTENCY_WINDOW_HOURS, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import { money } from '../observability/tracing.ts'
import type { ReserveArgs, ReserveOutcome, Size } from './wallet.ts'

/** A refused or replayed acceptance, as a call's (402, the spend cap, the Idempotency-Key's answers). */
type NotHeld = Exclude<ReserveOutcome, { outcome: 'ok' }>

type AcceptRow = {
  outcome: 'ok' | 'replay' | 'in_use' | 'reused' | 'insufficient' | 'spend_cap'
  status: number
  body: string
  available: string | null
}

/** The Idempotency-Key's arguments of accept_job and reserve_batch: its key, fingerprint and window. */
const claimArgs = (idempotency: IdempotencyClaim | undefined) => [
  idempotency?.key ?? null,
  idempotency?.fingerprint ?? null,
  `${IDEMPOTENCY_WINDOW_HOURS} hours`,
]

/** The row of an acceptance's statement as its outcome: `ok` as `held` makes it, anything else as a call's. */
function acceptance<R extends AcceptRow, T>(fn: string, row: R | undefined, held: (row: R) => T): T | NotHeld {
  if (!row) throw new Error(`${fn} returned nothing`)
  if (row.outcome === 'ok') return held(row)
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status, body: row.body }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome }
}

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
export type HeldAcceptance = { outcome: 'ok' } | NotHeld

export async function acceptWithHold(q: Query, a: AcceptWithHoldArgs): Promise<HeldAcceptance> {
  const [row] = await money(q).sql<AcceptRow>(
    `select * from accept_job(?, ?, ?, ?, ?, ?, ?, ?::interval, ?, ?, ?::jsonb, ?, ?, ?, ?, ?::jsonb)`,
    [
      a.accountId,
      a.keyId,
      a.price,
      a.endpoint,
      a.requestId,
      ...claimArgs(a.idempotency),
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
  return acceptance('accept_job', row, () => ({ outcome: 'ok' as const }))
}

export interface BatchHoldArgs {
  accountId: string
  keyId: string
  endpoint: string
  requestId: string
  idempotency: IdempotencyClaim | undefined
  now: Date
  /** Each item's price (after any discount) and the size it was priced at, in item order. */
  items: Array<{ credits: number; size: Static<typeof Size> | undefined }>
  /** The 202 the Idempotency-Key replays. */
  accepted: string
}

export type BatchHoldOutcome = { outcome: 'ok'; holdIds: string[] } | NotHeld

/**
 * A batch's money at acceptance: one spend check for the whole quote, split into one hold per item, so each item's
 * ending captures or releases its own price as a job's does (settleJobs). Runs in `q`, the acceptance's
 * transaction, which writes the items with their hold ids.
 */
export async function holdBatch(q: Query, a: BatchHoldArgs): Promise<BatchHoldOutcome> {
  const [row] = await money(q).sql<AcceptRow & { hold_ids: string[] }>(
    `select * from reserve_batch(?, ?, ?, ?, ?, ?, ?::interval, ?, ?::bigint[], ?::jsonb[], ?)`,
    [
      a.accountId,
      a.keyId,
      a.endpoint,
      a.requestId,
      ...claimArgs(a.idempotency),
      a.now,
      a.items.map((i) => i.credits),
      a.items.map((i) => (i.size ? JSON.stringify(i.size) : null)),
      a.accepted,
    ],
  )
  return acceptance('reserve_batch', row, (r) => ({ outcome: 'ok' as const, holdIds: r.hold_ids }))
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
