// Items end as jobs do (end_jobs: captured or released, exactly once); this listener of the kernel's job
// endings (services.jobEvents) counts them on their batch in the same transaction, and ends the batch when its
// last item ends: the batch row's lock orders concurrent endings, so exactly one transaction sees the last.
// A cancelled item is a job failed `cancelled`, an expired one a job failed `deadline_exceeded` (the jobs' 24 h
// deadline, which is the batch's expiresAt).
import type { Query } from '../db/database.ts'
import type { JobEvents } from '../services.ts'

export const CANCELLED = { code: 'cancelled', message: 'The batch was cancelled before this item started; nothing was charged.' } as const

/** Called in the transaction that ended the last items of these batches (their row ids). */
export type BatchesEnded = (batchIds: string[], q: Query) => Promise<void>

export function batchEndings(now: () => Date, onEnded: BatchesEnded[] = []): JobEvents {
  return async (events, q) => {
    const ids = events.map((e) => e.jobId)
    // Several batches' rows: locked in id order (docs/locking.md).
    const locked = await q.sql(
      `select b.id from batches b where b.id in (select j.batch_id from jobs j where j.id = any(?::uuid[]) and j.batch_id is not null)
        order by b.id for update of b`,
      [ids],
    )
    if (!locked.length) return
    const ended = await q.sql<{ id: string; done: boolean }>(
      `with items as (
         select j.batch_id, count(*)::int as n,
                count(*) filter (where j.status = 'succeeded')::int as succeeded,
                count(*) filter (where j.status = 'failed' and j.error->>'code' not in ('cancelled', 'deadline_exceeded'))::int as failed,
                count(*) filter (where j.error->>'code' = 'cancelled')::int as cancelled,
                count(*) filter (where j.error->>'code' = 'deadline_exceeded')::int as expired,
                coalesce(sum(h.amount) filter (where h.state = 'captured'), 0) as charged,
                coalesce(sum(h.amount) filter (where h.state = 'released'), 0) as released
           from jobs j left join holds h on h.id = j.hold_id
          where j.id = any(?::uuid[]) and j.batch_id is not null
          group by j.batch_id
       )
       update batches b
          set succeeded = b.succeeded + i.succeeded, failed = b.failed + i.failed, cancelled = b.cancelled + i.cancelled,
              expired = b.expired + i.expired, charged = b.charged + i.charged, released = b.released + i.released,
              status = case when b.succeeded + b.failed + b.cancelled + b.expired + i.n < b.total then b.status
                            when b.status = 'cancelled' then 'cancelled'
                            when b.expired + i.expired > 0 then 'expired'
                            else 'completed' end,
              completed_at = case when b.succeeded + b.failed + b.cancelled + b.expired + i.n = b.total then ?::timestamptz end
         from items i
        where b.id = i.batch_id
       returning b.id, b.completed_at is not null as done`,
      [ids, now()],
    )
    const done = ended.filter((b) => b.done).map((b) => b.id)
    if (done.length) for (const listener of onEnded) await listener(done, q)
  }
}
