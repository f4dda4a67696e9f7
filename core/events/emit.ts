// Writing events: emitEvent inside the caller's transaction (the event row and its delivery jobs commit with the
// change that made it), and the job listener that turns job endings into job.completed / job.failed events.
// Balance and key-budget events are written by the database itself (migration 0024's triggers), under the lock
// of the money movement that crossed the line.
import type { KeyMode } from '../accounts/accounts.ts'
import type { Query } from '../db/database.ts'
import { jobView } from '../jobs/view.ts'
import type { JobEvents, Services } from '../services.ts'
import type { EventType } from './types.ts'

/** The graphile-worker task of one delivery attempt (the name queue_event_deliveries, migration 0024, queues). */
export const DELIVER_EVENT_TASK = 'deliver_event'

/** Stores the event and queues a delivery to every enabled endpoint subscribed to its type (or to `endpointId` alone). */
export async function emitEvent(
  q: Query,
  event: { accountId: string; type: EventType; livemode: boolean; data: unknown; endpointId?: string },
  now: Date,
): Promise<string> {
  const [row] = await q.sql<{ id: string }>(`select emit_event(?, ?, ?, ?::jsonb, ?, ?) as id`, [
    event.accountId,
    event.type,
    event.livemode,
    JSON.stringify(event.data),
    event.endpointId ?? null,
    now,
  ])
  return row!.id
}

/** Subscribes to job endings (the seam of core/jobs): one event per ended job, in the ending's transaction. */
export function jobEventListener(services: Services): JobEvents {
  return async (events, q) => {
    const jobs = await q.sql<{ id: string; account_id: string; mode: KeyMode }>(`select * from jobs where id = any(?::uuid[])`, [
      events.map((e) => e.jobId),
    ])
    const byId = new Map(jobs.map((j) => [j.id, j]))
    const rows = events.flatMap(({ event, jobId }) => {
      const job = byId.get(jobId)
      return job ? [{ accountId: job.account_id, type: event, livemode: job.mode === 'live', data: JSON.stringify(jobView(job)) }] : []
    })
    if (!rows.length) return
    await q.sql(
      `select emit_event(a, t, l, d::jsonb, null, ?) from unnest(?::uuid[], ?::text[], ?::boolean[], ?::text[]) as v (a, t, l, d)`,
      [services.now(), rows.map((r) => r.accountId), rows.map((r) => r.type), rows.map((r) => r.livemode), rows.map((r) => r.data)],
    )
  }
}
