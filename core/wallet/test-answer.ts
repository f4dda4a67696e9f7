// A test key's call holds and charges nothing, but its Idempotency-Key is claimed and replayed as a live call's,
// and a 200's usage shows the live balance: one statement (core/wallet/sql/test_answer.sql).
import type { Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { IDEMPOTENCY_WINDOW_HOURS, type ClaimOutcome, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import type { Size } from './wallet.ts'

export type TestAnswer = { outcome: 'ok'; status: number; body: string } | ClaimOutcome

/** The answer recorded under the Idempotency-Key (a 200's body gets usage), or the key's replay or refusal. */
export async function testAnswer(
  q: Query,
  accountId: string,
  idempotency: IdempotencyClaim | undefined,
  status: 200 | 202,
  result: string,
  size: Static<typeof Size> | null | undefined,
  now: Date,
): Promise<TestAnswer> {
  const [row] = await q.sql<{ outcome: TestAnswer['outcome']; status: number; body: string }>(
    `select * from test_answer(?, ?, ?, ?::interval, ?, ?, ?, ?::jsonb)`,
    [
      accountId,
      idempotency?.key ?? null,
      idempotency?.fingerprint ?? null,
      `${IDEMPOTENCY_WINDOW_HOURS} hours`,
      status,
      result,
      now,
      size ? JSON.stringify(size) : null,
    ],
  )
  if (!row) throw new Error('test_answer returned nothing')
  if (row.outcome === 'ok' || row.outcome === 'replay') return { outcome: row.outcome, status: row.status, body: row.body }
  return { outcome: row.outcome }
}
