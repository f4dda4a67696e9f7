// Writing events: emitEvent inside the caller's transaction (the event row and its delivery jobs commit with the
// change that made it); emitEvents for a group (core/jobs records the job endings with it).
// Balance and key-budget events are written by the database itself (the triggers of core/events/sql/), under the lock
// of the money movement that crossed the line.
import type { Query } from '../db/database.ts'
import type { EventType } from './types.ts'

/** The graphile-worker task of one delivery attempt (the name core/events/sql/queue_event_deliveries.sql queues). */
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

/** Several events in one statement (the job endings of one group). */
export async function emitEvents(q: Query, events: { accountId: string; type: EventType; livemode: boolean; data: unknown }[], now: Date) {
  if (!events.length) return
  await q.sql(
    `select emit_event(a, t, l, d::jsonb, null, ?) from unnest(?::uuid[], ?::text[], ?::boolean[], ?::text[]) as v (a, t, l, d)`,
    [
      now,
      events.map((e) => e.accountId),
      events.map((e) => e.type),
      events.map((e) => e.livemode),
      events.map((e) => JSON.stringify(e.data)),
    ],
  )
}
