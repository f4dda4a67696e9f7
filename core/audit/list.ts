// Reading the audit log (GET /v1/audit-log, its CSV, the dashboard's Audit page, /admin): newest first, a cursor,
// filters by action, actor and time, always within one account. Retention: maintenance drops the monthly
// partitions wholly past AUDIT_RETENTION_DAYS (core/records); a DELETE of a younger entry the trigger refuses.
import { Type, type Static } from '@sinclair/typebox'
import { csvLine } from '../csv.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { UUID } from '../validation.ts'
import { ACTOR_TYPES, type ActorType } from './audit.ts'

/** Kept 400 days (C18); the table's trigger refuses to delete anything younger (migration 0020). */
export const AUDIT_RETENTION_DAYS = 400

const DateTime = Type.String({ format: 'date-time' })

/** One entry, as GET /v1/audit-log lists it; published as components.schemas.AuditEntry. */
export const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'increasing with time; pass nextCursor to page' }),
    at: DateTime,
    actor: Type.Object(
      {
        type: Type.Union(ACTOR_TYPES.map((t) => Type.Literal(t))),
        id: Type.Optional(Type.String({ description: 'the member or key id' })),
        email: Type.Optional(Type.String({ description: 'a member’s email' })),
        keyPrefix: Type.Optional(Type.String({ description: 'a key’s first 12 characters' })),
      },
      { additionalProperties: false },
    ),
    action: Type.String({ description: '<thing>.<what happened>, e.g. key.created, member.role_changed, sign_in.failed' }),
    target: Type.Object(
      { type: Type.String(), id: Type.Optional(Type.String()) },
      { additionalProperties: false, description: 'what was changed' },
    ),
    requestId: Type.Optional(Type.String({ description: 'the X-Request-Id of the request that made the change' })),
    ip: Type.Optional(Type.String()),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'what changed: before/after values, reasons; never a secret' }),
  },
  { additionalProperties: false },
)
export type AuditEntry = Static<typeof AuditEntry>

export const AuditPage = Type.Object(
  {
    entries: Type.Array(AuditEntry),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
  },
  { additionalProperties: false },
)

export interface AuditFilter {
  /** An exact action (key.created) or a family (key: every key.* action). */
  action?: string
  /** A member or key id, an email, a key prefix, or an actor type (operator, system, member, key). */
  actor?: string
  from?: Date
  to?: Date
}

const encodeCursor = (id: string) => Buffer.from(`a:${id}`).toString('base64url')

function decodeCursor(cursor: string): string {
  const m = /^a:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return m[1]!
}

interface Row {
  id: string
  at: string
  actor_type: ActorType
  actor_id: string | null
  actor_email: string | null
  actor_key_prefix: string | null
  action: string
  target_type: string
  target_id: string | null
  request_id: string | null
  ip: string | null
  details: Record<string, unknown>
}

function entry(r: Row): AuditEntry {
  return {
    id: String(r.id),
    at: new Date(r.at).toISOString(),
    actor: {
      type: r.actor_type,
      ...(r.actor_id ? { id: r.actor_id } : {}),
      ...(r.actor_email ? { email: r.actor_email } : {}),
      ...(r.actor_key_prefix ? { keyPrefix: r.actor_key_prefix } : {}),
    },
    action: r.action,
    target: { type: r.target_type, ...(r.target_id ? { id: r.target_id } : {}) },
    ...(r.request_id ? { requestId: r.request_id } : {}),
    ...(r.ip ? { ip: r.ip } : {}),
    details: r.details,
  }
}

/** The actor filter as one condition: ids and prefixes exactly, emails without case, a type by name. */
function actorCondition(actor: string): { sql: string; value: string } {
  if ((ACTOR_TYPES as readonly string[]).includes(actor)) return { sql: 'actor_type = ?', value: actor }
  if (actor.includes('@')) return { sql: 'actor_email = ?', value: actor.toLowerCase() }
  if (UUID.test(actor)) return { sql: 'actor_id = ?', value: actor.toLowerCase() }
  return { sql: 'actor_key_prefix = ?', value: actor }
}

export async function listAudit(
  db: Query,
  accountId: string,
  filter: AuditFilter,
  page: { limit: number; cursor?: string },
): Promise<Static<typeof AuditPage>> {
  const where = ['account_id = ?']
  const params: unknown[] = [accountId]
  if (filter.action) {
    if (filter.action.includes('.')) {
      where.push('action = ?')
      params.push(filter.action)
    } else {
      where.push(`action like ? || '.%'`)
      params.push(filter.action)
    }
  }
  if (filter.actor) {
    const c = actorCondition(filter.actor)
    where.push(c.sql)
    params.push(c.value)
  }
  if (filter.from) {
    where.push('at >= ?')
    params.push(filter.from)
  }
  if (filter.to) {
    where.push('at < ?')
    params.push(filter.to)
  }
  if (page.cursor) {
    where.push('id < ?')
    params.push(decodeCursor(page.cursor))
  }
  const rows = await db.sql<Row>(
    `select id, at, actor_type, actor_id, actor_email, actor_key_prefix, action, target_type, target_id, request_id, ip, details
       from audit_entries where ${where.join(' and ')} order by id desc limit ?`,
    [...params, page.limit + 1],
  )
  const more = rows.length > page.limit
  const entries = rows.slice(0, page.limit).map(entry)
  return { entries, ...(more ? { nextCursor: encodeCursor(entries.at(-1)!.id) } : {}) }
}

const CSV_HEADER = 'id,at,actor_type,actor_id,actor_email,actor_key_prefix,action,target_type,target_id,request_id,ip,details'

/** Every entry the filter matches, oldest first, as CSV (pages of 1,000 read in turn). */
export async function auditCsv(db: Query, accountId: string, filter: AuditFilter): Promise<string> {
  const all: AuditEntry[] = []
  let cursor: string | undefined
  do {
    const page = await listAudit(db, accountId, filter, { limit: 1000, ...(cursor ? { cursor } : {}) })
    all.push(...page.entries)
    cursor = page.nextCursor
  } while (cursor)
  const lines = [CSV_HEADER]
  for (const e of all.reverse())
    lines.push(
      csvLine([
        e.id,
        e.at,
        e.actor.type,
        e.actor.id,
        e.actor.email,
        e.actor.keyPrefix,
        e.action,
        e.target.type,
        e.target.id,
        e.requestId,
        e.ip,
        JSON.stringify(e.details),
      ]),
    )
  return lines.join('\r\n') + '\r\n'
}
