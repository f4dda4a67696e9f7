// A batch's money at acceptance (C19): one spend check for the whole quote (402, the spend cap, the
// Idempotency-Key, as a call), split into one hold per item in the same statement (sql/reserve_batch.sql), so each
// item's ending captures or releases its own price like an async job's (end_jobs).
import type { Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { IDEMPOTENCY_WINDOW_HOURS, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import { money } from '../observability/tracing.ts'
import type { ReserveOutcome, Size } from './wallet.ts'

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

export type BatchHoldOutcome = { outcome: 'ok'; holdIds: string[] } | Exclude<ReserveOutcome, { outcome: 'ok' }>

/** Holds a batch's items in `q` (the acceptance's transaction, which writes the items with their hold ids). */
export async function holdBatch(q: Query, a: BatchHoldArgs): Promise<BatchHoldOutcome> {
  const [row] = await money(q).sql<{ outcome: string; status: number; body: string; available: string | null; hold_ids: string[] }>(
    `select * from reserve_batch(?, ?, ?, ?, ?, ?, ?::interval, ?, ?::bigint[], ?::jsonb[], ?)`,
    [
      a.accountId,
      a.keyId,
      a.endpoint,
      a.requestId,
      a.idempotency?.key ?? null,
      a.idempotency?.fingerprint ?? null,
      `${IDEMPOTENCY_WINDOW_HOURS} hours`,
      a.now,
      a.items.map((i) => i.credits),
      a.items.map((i) => (i.size ? JSON.stringify(i.size) : null)),
      a.accepted,
    ],
  )
  if (!row) throw new Error('reserve_batch returned nothing')
  if (row.outcome === 'ok') return { outcome: 'ok', holdIds: row.hold_ids }
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status, body: row.body }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome as 'in_use' | 'reused' | 'spend_cap' }
}

/** Window `24h`: each item's price less the discount, rounded up to whole credits (never below 1). */
export function discounted(credits: number, discountPercent: number): number {
  return Math.max(1, Math.ceil((credits * (100 - discountPercent)) / 100))
}
