// Invitations (C18): an email with a single-use link, valid 7 days, that makes its bearer a member with the role
// it names (and signs them in). Stored as SHA-256 of the link's token; a new invitation of the same email replaces
// a pending one.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { UUID } from '../validation.ts'
import { RoleSchema } from './members.ts'
import { mayManageRole, type Role } from '../roles.ts'

export const INVITATION_TTL_MS = 7 * 24 * 3600_000

const DateTime = Type.String({ format: 'date-time' })

/** Published as components.schemas.Invitation. The link itself is only ever in the email. */
export const Invitation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: RoleSchema,
    createdAt: DateTime,
    expiresAt: DateTime,
    status: Type.Union([Type.Literal('pending'), Type.Literal('expired')]),
  },
  { additionalProperties: false },
)
export type Invitation = Static<typeof Invitation>

const sha256 = (s: string) => createHash('sha256').update(s).digest()

interface Row {
  id: string
  email: string
  role: Role
  created_at: string
  expires_at: string
}

const view = (r: Row, now: Date): Invitation => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: new Date(r.created_at).toISOString(),
  expiresAt: new Date(r.expires_at).toISOString(),
  status: new Date(r.expires_at) > now ? 'pending' : 'expired',
})

/** Invitations neither accepted nor revoked, newest first (expired ones too, marked so). */
export async function listInvitations(db: Query, accountId: string, now: Date): Promise<Invitation[]> {
  const rows = await db.sql<Row>(
    `select id, email, role, created_at, expires_at from invitations
      where account_id = ? and accepted_at is null and revoked_at is null order by created_at desc limit 200`,
    [accountId],
  )
  return rows.map((r) => view(r, now))
}

/** Records the invitation, then emails its link (`origin`: the dashboard's public origin, never the request's Host). */
export async function invite(
  services: Services,
  accountId: string,
  input: { email: string; role: Role },
  acting: Acting,
  origin: string,
): Promise<Invitation> {
  if (!mayManageRole(acting.actor.role, input.role))
    throw new ApiError('permission_denied', `Only an owner can invite an owner (you act as ${acting.actor.role}).`)
  const email = input.email.toLowerCase()
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(acting.at.getTime() + INVITATION_TTL_MS)
  const { row, accountEmail } = await services.db.tx(async (q) => {
    const [member] = await q.sql(`select 1 from members where account_id = ? and email = ?`, [accountId, email])
    if (member)
      throw new ApiError('invalid_request', 'This email is already a member of the account.', [
        { path: '/email', message: 'already a member' },
      ])
    const replaced = await q.sql<{ id: string }>(
      `update invitations set revoked_at = ? where account_id = ? and email = ? and accepted_at is null and revoked_at is null returning id`,
      [acting.at, accountId, email],
    )
    const [row] = await q.sql<Row>(
      `insert into invitations (id, account_id, email, role, token_hash, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)
       returning id, email, role, created_at, expires_at`,
      [randomUUID(), accountId, email, input.role, sha256(token), acting.at, expiresAt],
    )
    await audit(q, acting, {
      accountId,
      action: 'invitation.created',
      target: { type: 'invitation', id: row!.id },
      details: {
        email,
        role: input.role,
        expiresAt: expiresAt.toISOString(),
        ...(replaced.length ? { replaced: replaced.map((r) => r.id) } : {}),
      },
    })
    const [account] = await q.sql<{ email: string }>(`select email from accounts where id = ?`, [accountId])
    return { row: row!, accountEmail: account!.email }
  })
  await services.mailer.send(
    email,
    'You are invited to a service account',
    `You are invited to join the account of ${accountEmail} as ${input.role}.\n\nAccept with this link (valid for 7 days, once):\n\n` +
      `${origin}/dashboard/invitations/accept?token=${token}\n\nIf you do not expect it, ignore this email.`,
  )
  return view(row, acting.at)
}

export async function revokeInvitation(db: Database, accountId: string, invitationId: string, acting: Acting): Promise<Invitation> {
  return db.tx(async (q) => {
    const [open] = UUID.test(invitationId)
      ? await q.sql<{ role: Role }>(
          `select role from invitations where id = ? and account_id = ? and accepted_at is null and revoked_at is null for update`,
          [invitationId, accountId],
        )
      : []
    if (!open) throw new ApiError('not_found', 'No such invitation.')
    if (!mayManageRole(acting.actor.role, open.role))
      throw new ApiError('permission_denied', `Only an owner can revoke an invitation to be an owner (you act as ${acting.actor.role}).`)
    const [row] = await q.sql<Row>(`update invitations set revoked_at = ? where id = ? returning id, email, role, created_at, expires_at`, [
      acting.at,
      invitationId,
    ])
    if (!row) throw new ApiError('not_found', 'No such invitation.')
    await audit(q, acting, {
      accountId,
      action: 'invitation.revoked',
      target: { type: 'invitation', id: row.id },
      details: { email: row.email, role: row.role },
    })
    return view(row, acting.at)
  })
}

/** What a live invitation link offers (its confirmation page names it), without using it up; null when none. */
export async function pendingInvitation(
  db: Query,
  token: string,
  now: Date,
): Promise<{ email: string; role: Role; accountId: string; accountEmail: string } | null> {
  const [row] = await db.sql<{ email: string; role: Role; account_id: string; account_email: string }>(
    `select i.email, i.role, i.account_id, a.email as account_email from invitations i join accounts a on a.id = i.account_id
      where i.token_hash = ? and i.accepted_at is null and i.revoked_at is null and i.expires_at > ?`,
    [sha256(token), now],
  )
  return row ? { email: row.email, role: row.role, accountId: row.account_id, accountEmail: row.account_email } : null
}

/**
 * Uses the link once: its email becomes a member with its role (an existing member keeps theirs), in the same
 * transaction as the audit entry. Null when the link is unknown, used, revoked or expired.
 */
export async function acceptInvitation(
  db: Database,
  token: string,
  request: { requestId: string; ip: string; at: Date },
): Promise<{ accountId: string; memberId: string; email: string } | null> {
  return db.tx(async (q) => {
    const [inv] = await q.sql<{ id: string; account_id: string; email: string; role: Role }>(
      `update invitations set accepted_at = ? where token_hash = ? and accepted_at is null and revoked_at is null and expires_at > ?
       returning id, account_id, email, role`,
      [request.at, sha256(token), request.at],
    )
    if (!inv) return null
    const [added] = await q.sql<{ id: string }>(
      `insert into members (id, account_id, email, role, created_at) values (?, ?, ?, ?, ?) on conflict (account_id, email) do nothing returning id`,
      [randomUUID(), inv.account_id, inv.email, inv.role, request.at],
    )
    const [member] = added
      ? [added]
      : await q.sql<{ id: string }>(`select id from members where account_id = ? and email = ?`, [inv.account_id, inv.email])
    const [role] = await q.sql<{ role: Role }>(`select role from members where id = ?`, [member!.id])
    await audit(
      q,
      {
        actor: { type: 'member', id: member!.id, email: inv.email, role: role!.role },
        requestId: request.requestId,
        ip: request.ip,
        at: request.at,
      },
      {
        accountId: inv.account_id,
        action: 'invitation.accepted',
        target: { type: 'invitation', id: inv.id },
        details: { email: inv.email, role: inv.role, memberId: member!.id, ...(added ? {} : { alreadyMember: true }) },
      },
    )
    return { accountId: inv.account_id, memberId: member!.id, email: inv.email }
  })
}
