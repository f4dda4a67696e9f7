// The only code that moves credits (C4). Each call is one statement: the SQL functions of core/wallet/sql/ hold,
// capture and release atomically, so concurrent calls can never overdraw.
import { Type, type Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { money } from '../observability/tracing.ts'
import { IDEMPOTENCY_WINDOW_HOURS, type ClaimOutcome, type IdempotencyClaim } from '../idempotency/idempotency.ts'

/** Why a hold cannot be placed (C4, C9); spend_refusal() in SQL is the one definition of the rule. */
export type SpendRefusal = 'insufficient' | 'spend_cap'

/** A placed hold and the Idempotency-Key its call claimed: capture and release settle both together. */
export interface Hold {
  holdId: string
  idempotencyKey: string | null
  /** A slice of a credit lease (lease.ts) instead of a hold: it charges and releases itself. */
  lease?: LeasedCall
}

/** What capture() and release() do with a leased slice. */
export interface LeasedCall {
  charge(result: object, now: Date): Promise<{ body: string; available: number }>
  release(): Promise<boolean>
}

/** `available`: what the account had when the statement refused, read under its lock (the 402 says it). */
export type ReserveOutcome =
  ({ outcome: 'ok' } & Hold) | ClaimOutcome | { outcome: 'insufficient'; available: number } | { outcome: 'spend_cap' }

export interface ReserveArgs {
  accountId: string
  keyId: string
  price: number
  endpoint: string
  requestId: string
  /** Sync holds expire (a crashed process must not strand credits); job holds live with their job. */
  holdTtlSeconds: number | null
  idempotency?: IdempotencyClaim | undefined
  now: Date
  /** What a size-priced call was priced at (pipeline/price.ts): kept on the hold, the ledger row and `usage`. */
  size?: Static<typeof Size> | undefined
}

type ReserveRow = {
  outcome: 'ok' | 'replay' | 'in_use' | 'reused' | SpendRefusal
  hold_id: string
  status: number
  body: string
  available: string | null
}

/** reserve_call's parameters, in its order (a function that holds through it takes them too). */
export const reserveCallParams = (a: ReserveArgs): unknown[] => [
  a.accountId,
  a.keyId,
  a.price,
  a.endpoint,
  a.requestId,
  a.holdTtlSeconds === null ? null : `${a.holdTtlSeconds} seconds`,
  a.idempotency?.key ?? null,
  a.idempotency?.fingerprint ?? null,
  `${IDEMPOTENCY_WINDOW_HOURS} hours`,
  a.now,
  a.size ? JSON.stringify(a.size) : null,
]

export async function reserve(q: Query, a: ReserveArgs): Promise<ReserveOutcome> {
  const [row] = await money(q).sql<ReserveRow>(
    `select * from reserve_call(?, ?, ?, ?, ?, ?::interval, ?, ?, ?::interval, ?, ?::jsonb)`,
    reserveCallParams(a),
  )
  if (!row) throw new Error('reserve_call returned nothing')
  if (row.outcome === 'ok') return { outcome: 'ok', holdId: row.hold_id, idempotencyKey: a.idempotency?.key ?? null }
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status, body: row.body }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome }
}

/**
 * Runs a money statement of one account after the one this process already has in flight for it. The account's
 * row lock serialises them in PostgreSQL anyway; a queue of backends waiting on that lock cost PostgreSQL about
 * as much CPU again as the statements themselves, and held pool connections other accounts' calls needed
 * (BENCHMARKS.md, "One hot account"; two in flight measured worse than one). Single statements only (a sync
 * call's hold, capture and release, an async acceptance's accept_job): a transaction waiting here while it holds
 * row locks could deadlock with the statement ahead of it, which may wait for those locks.
 */
export async function inAccountTurn<T>(accountId: string, statement: () => Promise<T>): Promise<T> {
  const waiting = waitingFor.get(accountId) // present while one of the account's statements is in flight
  if (waiting) await new Promise<void>((go) => waiting.push(go))
  else waitingFor.set(accountId, [])
  try {
    return await statement()
  } finally {
    const next = waitingFor.get(accountId)!.shift()
    if (next)
      next() // the turn passes on; the account stays in flight
    else waitingFor.delete(accountId)
  }
}
const waitingFor = new Map<string, Array<() => void>>()

/** How a size-priced call was measured (issue 27): in `usage` and in a dry run's report. */
export const Size = Type.Object(
  {
    unit: Type.Union([Type.Literal('page'), Type.Literal('1k-tokens')]),
    units: Type.Integer({ minimum: 0, description: "pages of the call's documents, or its text in 1,000-token units" }),
    included: Type.Integer({ minimum: 0, description: 'units the base price (x-price) covers' }),
    perUnit: Type.Integer({ minimum: 1, description: 'credits per unit beyond included' }),
  },
  { additionalProperties: false, description: 'how this size-priced call was measured (x-price-size)' },
)

const usageFields = {
  credits: Type.Integer({ minimum: 0, description: 'credits this call charged' }),
  balanceRemaining: Type.Integer({ description: 'credits available after the charge' }),
  size: Type.Optional(Size),
  cached: Type.Optional(
    Type.Literal(true, { description: 'answered from the result cache (Service-Cache: hit): no model call, the hit price charged' }),
  ),
  livemode: Type.Boolean({ description: 'false: a test key' }),
}

/** What capture_hold appends to every charged result as `usage`; published as components.schemas.Usage. */
export const Usage = Type.Object(usageFields, { additionalProperties: false })

/**
 * A job result's `usage`: a test key's job has no balanceRemaining, since its webhook carries the result to a
 * receiver that is told nothing of the live wallet.
 */
export const JobUsage = Type.Object(
  {
    ...usageFields,
    balanceRemaining: Type.Optional(Type.Integer({ description: 'credits available after the charge; absent in a test job' })),
  },
  { additionalProperties: false },
)

/** Captures the hold and returns the exact response body (result + usage) that was recorded. */
export async function capture(q: Query, hold: Hold, result: object, now: Date): Promise<{ body: string; available: number }> {
  if (hold.lease) return hold.lease.charge(result, now)
  const [row] = await money(q).sql<{ body: string; available: string }>(`select * from capture_hold(?, ?, ?, ?)`, [
    hold.holdId,
    JSON.stringify(result),
    hold.idempotencyKey,
    now,
  ])
  if (!row) throw new Error('capture_hold returned nothing')
  return { body: row.body, available: Number(row.available) }
}

/**
 * capture() of a call answered from the result cache (C20): `result` is the stored JSON, sent as it was the first
 * time; the usage event and `usage` say `cached`, and the usage event keeps the provider cost the hit saved.
 */
export async function captureCached(
  q: Query,
  hold: Hold,
  result: string,
  now: Date,
  savedUsd: number,
): Promise<{ body: string; available: number }> {
  const [row] = await money(q).sql<{ body: string; available: string }>(`select * from capture_cached_hold(?, ?, ?, ?, ?)`, [
    hold.holdId,
    result,
    hold.idempotencyKey,
    now,
    savedUsd,
  ])
  if (!row) throw new Error('capture_cached_hold returned nothing')
  return { body: row.body, available: Number(row.available) }
}

export async function release(q: Query, hold: Hold): Promise<boolean> {
  if (hold.lease) return hold.lease.release()
  const [row] = await money(q).sql(`select release_hold(?, ?) as released`, [hold.holdId, hold.idempotencyKey])
  return row?.released === true
}

export async function credit(
  q: Query,
  accountId: string,
  kind: 'purchase' | 'plan_grant' | 'adjustment',
  amount: number,
  reference: string,
  now: Date,
): Promise<number> {
  const [row] = await money(q).sql<{ balance: string }>(`select credit_account(?, ?, ?, ?, ?) as balance`, [
    accountId,
    kind,
    amount,
    reference,
    now,
  ])
  return Number(row?.balance)
}

export interface Balances {
  balance: number
  reserved: number
  available: number
}

export async function balances(q: Query, accountId: string): Promise<Balances | null> {
  const [row] = await q.sql(`select balance, reserved from accounts where id = ?`, [accountId])
  if (!row) return null
  const balance = Number(row.balance)
  const reserved = Number(row.reserved)
  return { balance, reserved, available: balance - reserved }
}

/** Each key's spend in the month of `now` (what C9's cap counts besides open holds), by key id, for one account. */
export async function monthSpends(q: Query, accountId: string, now: Date): Promise<Map<string, number>> {
  const rows = await q.sql<{ id: string; spend: string }>(
    `select id, key_month_spend(api_keys, ?) as spend from api_keys where account_id = ?`,
    [now, accountId],
  )
  return new Map(rows.map((r) => [r.id, Number(r.spend)]))
}

/**
 * Sync holds whose process died before capture or release (maintenance). One statement per hold, so that no
 * statement holds one account's lock while it waits for another's (docs/locking.md).
 */
export async function releaseExpiredHolds(q: Query, now: Date): Promise<number> {
  const expired = await q.sql<{ id: string }>(
    `select id from holds where state = 'open' and expires_at is not null and expires_at < ? order by account_id, id`,
    [now],
  )
  let released = 0
  for (const { id } of expired) if (await release(q, { holdId: id, idempotencyKey: null })) released++
  return released
}

/** The precheck of a dry run (C3): what reserve_call would answer about the money, read-only, by the same rule. */
export async function quote(
  q: Query,
  accountId: string,
  keyId: string,
  price: number,
  now: Date,
): Promise<{ available: number; refusal: SpendRefusal | null }> {
  const [row] = await q.sql<{ available: string; refusal: SpendRefusal | null }>(
    `select a.balance - a.reserved as available, spend_refusal(a, k, ?, ?) as refusal
       from accounts a join api_keys k on k.account_id = a.id
      where a.id = ? and k.id = ?`,
    [price, now, accountId, keyId],
  )
  return { available: Number(row?.available ?? 0), refusal: row ? row.refusal : 'insufficient' }
}
