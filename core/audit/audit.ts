// The audit log's one write (C18): `audit(q, acting, event)` inside the transaction of the change it records, so
// the change and its entry commit or roll back together. Every module that changes keys, members, settings or
// money calls it with the `Acting` of its request; the table itself refuses updates and deletes (migration 0020).
import type { Context } from 'koa'
import type { Query } from '../db/database.ts'
import { callerOf } from '../http/permissions.ts'
import { KEY_ROLE, type Role } from '../roles.ts'

export const ACTOR_TYPES = ['member', 'key', 'operator', 'system'] as const
export type ActorType = (typeof ACTOR_TYPES)[number]

export interface Actor {
  type: ActorType
  /** The member's or key's id; null for the operator and the system. */
  id: string | null
  email?: string
  keyPrefix?: string
  /** The role the actor acts with where roles matter (members): a member's own, an `all` key's KEY_ROLE. */
  role: Role
}

/** Who changes something, in which request, from which address, when: made once per request. */
export interface Acting {
  actor: Actor
  requestId: string | null
  ip: string | null
  at: Date
}

export interface AuditEvent {
  /** The account the change belongs to (null: none, e.g. an operator's report across accounts). */
  accountId: string | null
  /** `<thing>.<what happened>`, e.g. key.created, member.role_changed, sign_in.failed. */
  action: string
  target: { type: string; id: string | null }
  details?: Record<string, unknown>
}

export async function audit(q: Query, acting: Acting, event: AuditEvent): Promise<void> {
  const { actor } = acting
  await q.sql(
    `insert into audit_entries (account_id, at, actor_type, actor_id, actor_email, actor_key_prefix, action, target_type, target_id,
                                request_id, ip, details)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      event.accountId,
      acting.at,
      actor.type,
      actor.id,
      actor.email ?? null,
      actor.keyPrefix ?? null,
      event.action,
      event.target.type,
      event.target.id,
      acting.requestId,
      acting.ip,
      JSON.stringify(event.details ?? {}),
    ],
  )
}

/** Changes made by the service itself (Stripe's events, maintenance, a task), outside any customer's request. */
export const systemActing = (at: Date, requestId: string | null = null): Acting => ({
  actor: { type: 'system', id: null, role: 'owner' },
  requestId,
  ip: null,
  at,
})

/** Changes made by the operator (/admin, the admin CLI). */
export const operatorActing = (at: Date, requestId: string | null = null, ip: string | null = null): Acting => ({
  actor: { type: 'operator', id: null, role: 'owner' },
  requestId,
  ip,
  at,
})

/** A change made through the API: the key is the actor (acting with KEY_ROLE where roles matter). */
export function keyActing(ctx: Context, now: Date): Acting {
  const caller = callerOf(ctx)
  return {
    actor: { type: 'key', id: caller.keyId, keyPrefix: ctx.state.keyPrefix as string, role: KEY_ROLE },
    requestId: ctx.state.requestId as string,
    ip: ctx.ip,
    at: now,
  }
}
