// Idempotency (C5), owned here. A key is claimed, replayed or refused by the wallet's SQL in the same statement
// that places the hold (reserve_call, core/wallet/sql/), so a claim and its hold never part; capture_hold records
// the 200, release_hold forgets a failed claim, accept_job records a job's 202.
// This module reads the header, fingerprints the request, answers replays and refusals and ends the 24-hour window.
import { createHash } from 'node:crypto'
import type { Context } from 'koa'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { answerAccepted } from './answer.ts'

/** How long a key's answer is replayed (C5); reserve_call receives it, maintenance removes older records. */
export const IDEMPOTENCY_WINDOW_HOURS = 24

/** What reserve_call needs to claim a key: the key and the request's fingerprint. */
export interface IdempotencyClaim {
  key: string
  fingerprint: Buffer
}

/** The answers of reserve_call about a claimed key, other than a fresh claim. */
export type ClaimOutcome = { outcome: 'replay'; status: number; body: string } | { outcome: 'in_use' | 'reused' }

const KEY_FORMAT = /^[!-~]{1,128}$/

/** The Idempotency-Key header, checked (stage 4); undefined when absent. */
export function idempotencyKey(ctx: Context): string | undefined {
  const raw = ctx.headers['idempotency-key']
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !KEY_FORMAT.test(raw)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 128 printable ASCII characters without spaces.', [
      { path: 'header:Idempotency-Key', message: 'must match ^[!-~]{1,128}$' },
    ])
  }
  return raw
}

export function claim(key: string, method: string, path: string, body: unknown): IdempotencyClaim {
  return { key, fingerprint: fingerprint(method, path, body) }
}

/** SHA-256 of method, path and the canonical JSON of the body (sorted keys, no whitespace). */
export function fingerprint(method: string, path: string, body: unknown): Buffer {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body)}`)
    .digest()
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}

/** A replay is the recorded answer, byte for byte; anything else about the key is a 409. */
export function answerClaimed(ctx: Context, claimed: ClaimOutcome): void {
  switch (claimed.outcome) {
    case 'replay':
      ctx.set('Idempotent-Replayed', 'true')
      ctx.state.replayed = true
      if (claimed.status === 202) return answerAccepted(ctx, claimed.body)
      ctx.status = claimed.status
      ctx.type = 'application/json'
      ctx.body = claimed.body
      return
    case 'in_use':
      throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry shortly.', undefined, {
        'Retry-After': '1',
      })
    case 'reused':
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request in the last 24 hours.')
  }
}

/**
 * A key's final answer (replay or reused), read without claiming it: for calls that work before the claim (a
 * size-priced call reads its documents to be priced), so a replay costs no such work and cannot fail on it.
 * Null otherwise (free, or running: reserve_call decides, after the pipeline settles a lost call's key).
 */
export async function priorAnswer(q: Query, accountId: string, claimed: IdempotencyClaim, now: Date): Promise<ClaimOutcome | null> {
  const [r] = await q.sql<{ fingerprint: Buffer; state: string; status: number | null; body: string | null }>(
    `select fingerprint, state, status, body from idempotency_records where account_id = ? and key = ? and created_at > ?`,
    [accountId, claimed.key, new Date(now.getTime() - IDEMPOTENCY_WINDOW_HOURS * 3600_000)],
  )
  if (r?.state !== 'done') return null
  if (!Buffer.from(r.fingerprint).equals(claimed.fingerprint)) return { outcome: 'reused' }
  return { outcome: 'replay', status: Number(r.status), body: r.body! }
}

/** Maintenance: records older than the window are gone (reserve_call already treats them as absent). */
export async function removeExpiredIdempotencyRecords(q: Query, now: Date): Promise<number> {
  const removed = await q.sql(`delete from idempotency_records where created_at <= ? returning key`, [
    new Date(now.getTime() - IDEMPOTENCY_WINDOW_HOURS * 3600_000),
  ])
  return removed.length
}
