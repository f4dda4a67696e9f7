// The event log (C17): GET /v1/events (newest first), one event with its deliveries and their attempts, resend,
// and the 30-day retention. A key sees the events of its own mode: a test key the test-mode ones only, a live
// key the live ones.
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { AttemptView } from '../webhooks/webhooks.ts'
import { Event, EVENT_TYPE_NAMES, type EventBody } from './types.ts'

export const EVENT_RETENTION_DAYS = 30

export const EventsQuery = Type.Object(
  {
    type: Type.Optional(Type.Union(EVENT_TYPE_NAMES.map((t) => Type.Literal(t)))),
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$', description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]\\d?|100)$', description: '1–100, default 20' })),
  },
  { additionalProperties: false },
)
export const eventsParameters = Object.entries(EventsQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}))

export const EventPage = Type.Object(
  { events: Type.Array(Event), nextCursor: Type.Optional(Type.String()) },
  { additionalProperties: false },
)

const Status = Type.Union(['pending', 'delivered', 'failed', 'skipped'].map((s) => Type.Literal(s)))
export const EventDelivery = Type.Object(
  {
    endpointId: Type.Union([Type.String(), Type.Null()], { description: 'null: no endpoint (skipped), or the endpoint was deleted' }),
    url: Type.Union([Type.String(), Type.Null()]),
    status: Status,
    reason: Type.Optional(Type.String({ description: 'why it was skipped or failed without an answer' })),
    attempts: Type.Integer({ minimum: 0 }),
    lastStatusCode: Type.Optional(Type.Integer()),
    lastError: Type.Optional(Type.String()),
    nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    attemptLog: Type.Array(AttemptView, { description: 'every attempt, oldest first' }),
  },
  { additionalProperties: false },
)
export const EventWithDeliveries = Type.Composite([Event, Type.Object({ deliveries: Type.Array(EventDelivery) })], {
  additionalProperties: false,
})
export const Resent = Type.Object(
  { id: Type.String(), deliveries: Type.Integer({ minimum: 0, description: 'deliveries queued' }) },
  { additionalProperties: false },
)
export const ResendInput = Type.Object(
  { endpointId: Type.Optional(Type.String({ pattern: '^we_[0-9a-f]{1,64}$', description: 'absent: every endpoint subscribed now' })) },
  { additionalProperties: false },
)

interface EventRow {
  id: string
  seq: string
  type: EventBody['type']
  livemode: boolean
  data: EventBody['data']
  created_at: Date
}
const eventView = (r: EventRow): EventBody => ({
  id: r.id,
  type: r.type,
  createdAt: new Date(r.created_at).toISOString(),
  livemode: r.livemode,
  data: r.data,
})
/** The exact bytes an endpoint receives for this event (the same on every attempt and resend). */
export const eventPayload = (r: EventRow): string => JSON.stringify(eventView(r))

export interface Reader {
  accountId: string
  livemode: boolean
}

export async function listEvents(
  db: Query,
  reader: Reader,
  opts: { type?: string; cursor?: string; limit: number },
): Promise<Static<typeof EventPage>> {
  const rows = await db.sql<EventRow>(
    `select * from events where account_id = ? and livemode = ? and (?::text is null or type = ?) and (?::bigint is null or seq < ?)
      order by seq desc limit ?`,
    [reader.accountId, reader.livemode, opts.type ?? null, opts.type ?? null, opts.cursor ?? null, opts.cursor ?? null, opts.limit + 1],
  )
  const page = rows.slice(0, opts.limit)
  return { events: page.map(eventView), ...(rows.length > opts.limit ? { nextCursor: String(page.at(-1)!.seq) } : {}) }
}

async function findEvent(db: Query, reader: Reader, id: string): Promise<EventRow> {
  const [row] = await db.sql<EventRow>(`select * from events where id = ? and account_id = ? and livemode = ?`, [
    id,
    reader.accountId,
    reader.livemode,
  ])
  if (!row) throw new ApiError('not_found', 'No such event.')
  return row
}

export async function getEvent(db: Query, reader: Reader, id: string): Promise<Static<typeof EventWithDeliveries>> {
  const event = await findEvent(db, reader, id)
  const rows = await db.sql<{
    endpoint_id: string | null
    url: string | null
    status: Static<typeof Status>
    reason: string | null
    attempts: number
    last_status_code: number | null
    last_error: string | null
    next_attempt_at: Date | null
    created_at: Date
    log: Static<typeof AttemptView>[]
  }>(
    `select d.*, coalesce(json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'statusCode', a.status_code, 'error', a.error,
                                                    'durationMs', a.duration_ms) order by a.attempt, a.id) filter (where a.id is not null), '[]') as log
       from event_deliveries d left join event_attempts a on a.delivery_id = d.id
      where d.event_id = ? group by d.id order by d.id`,
    [id],
  )
  return {
    ...eventView(event),
    deliveries: rows.map((d) => ({
      endpointId: d.endpoint_id,
      url: d.url,
      status: d.status,
      ...(d.reason ? { reason: d.reason } : {}),
      attempts: d.attempts,
      ...(d.last_status_code !== null ? { lastStatusCode: d.last_status_code } : {}),
      ...(d.last_error ? { lastError: d.last_error } : {}),
      ...(d.next_attempt_at && d.status === 'pending' ? { nextAttemptAt: new Date(d.next_attempt_at).toISOString() } : {}),
      createdAt: new Date(d.created_at).toISOString(),
      attemptLog: d.log.map((a) => ({ ...a, at: new Date(a.at).toISOString() })),
    })),
  }
}

/** New deliveries of the same event (the same webhook-id): to one endpoint of the account, or every one subscribed now. */
export async function resendEvent(db: Database, reader: Reader, id: string, endpointId: string | undefined, acting: Acting) {
  await findEvent(db, reader, id)
  const now = acting.at
  return db.tx(async (q) => {
    if (endpointId) {
      const [endpoint] = await q.sql(`select 1 from webhook_endpoints where id = ? and account_id = ?`, [endpointId, reader.accountId])
      if (!endpoint) throw new ApiError('not_found', 'No such webhook endpoint.')
    }
    const [row] = await q.sql<{ n: number }>(`select queue_event_deliveries(?, ?, ?) as n`, [id, endpointId ?? null, now])
    await audit(q, acting, {
      accountId: reader.accountId,
      action: 'event.resent',
      target: { type: 'event', id },
      details: { endpointId: endpointId ?? null },
    })
    return { id, deliveries: row!.n }
  })
}

/** Events older than EVENT_RETENTION_DAYS, with their deliveries and attempts (maintenance). */
export async function pruneEvents(db: Query, now: Date): Promise<number> {
  const rows = await db.sql(`delete from events where created_at < ?::timestamptz - make_interval(days => ?) returning 1`, [
    now,
    EVENT_RETENTION_DAYS,
  ])
  return rows.length
}
