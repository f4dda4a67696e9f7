// Members of an account (C18): list, add, change a role, remove. Only an owner grants, changes or removes the owner
// role, and an account always keeps one owner: every change locks the account's owners first, so two changes at
// once cannot each leave the other as the last owner and both go through.
import { randomUUID } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { UUID } from '../validation.ts'
import { mayManageRole, ROLES, type Role } from '../roles.ts'

const DateTime = Type.String({ format: 'date-time' })

export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)))

/** Published as components.schemas.Member. */
export const Member = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: RoleSchema,
    createdAt: DateTime,
    lastSignInAt: Type.Union([DateTime, Type.Null()]),
  },
  { additionalProperties: false },
)
export type Member = Static<typeof Member>

interface Row {
  id: string
  email: string
  role: Role
  created_at: string
  last_sign_in_at: string | null
}

const COLUMNS = 'id, email, role, created_at, last_sign_in_at'

const view = (r: Row): Member => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: new Date(r.created_at).toISOString(),
  lastSignInAt: r.last_sign_in_at ? new Date(r.last_sign_in_at).toISOString() : null,
})

export async function listMembers(db: Query, accountId: string): Promise<Member[]> {
  return (await db.sql<Row>(`select ${COLUMNS} from members where account_id = ? order by created_at, email`, [accountId])).map(view)
}

function refuseRole(acting: Acting, role: Role): void {
  if (!mayManageRole(acting.actor.role, role))
    throw new ApiError('permission_denied', `Only an owner can grant, change or remove the owner role (you act as ${acting.actor.role}).`)
}

/** Locks the account's owners for the rest of the transaction (see the header). */
const lockOwners = (q: Query, accountId: string) =>
  q.sql(`select id from members where account_id = ? and role = 'owner' order by id for update`, [accountId])

async function keepOneOwner(q: Query, accountId: string): Promise<void> {
  const [row] = await q.sql<{ n: string }>(`select count(*) as n from members where account_id = ? and role = 'owner'`, [accountId])
  if (Number(row!.n) < 1)
    throw new ApiError('invalid_request', 'An account keeps at least one owner: make someone else owner first.', [
      { path: '/role', message: 'the last owner' },
    ])
}

/** `email` joins the account at once (they sign in with it); an invitation asks them first (invitations.ts). */
export async function addMember(db: Database, accountId: string, input: { email: string; role: Role }, acting: Acting): Promise<Member> {
  refuseRole(acting, input.role)
  const email = input.email.toLowerCase()
  try {
    return await db.tx(async (q) => {
      const [row] = await q.sql<Row>(
        `insert into members (id, account_id, email, role, created_at) values (?, ?, ?, ?, ?) returning ${COLUMNS}`,
        [randomUUID(), accountId, email, input.role, acting.at],
      )
      await audit(q, acting, {
        accountId,
        action: 'member.added',
        target: { type: 'member', id: row!.id },
        details: { email, role: input.role },
      })
      return view(row!)
    })
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      throw new ApiError('invalid_request', 'This email is already a member of the account.', [
        { path: '/email', message: 'already a member' },
      ])
    throw e
  }
}

async function memberOf(q: Query, accountId: string, memberId: string): Promise<Row> {
  const [row] = UUID.test(memberId)
    ? await q.sql<Row>(`select ${COLUMNS} from members where id = ? and account_id = ? for update`, [memberId, accountId])
    : []
  if (!row) throw new ApiError('not_found', 'No such member.')
  return row
}

export async function changeRole(db: Database, accountId: string, memberId: string, role: Role, acting: Acting): Promise<Member> {
  return db.tx(async (q) => {
    await lockOwners(q, accountId)
    const before = await memberOf(q, accountId, memberId)
    refuseRole(acting, before.role)
    refuseRole(acting, role)
    const [row] = await q.sql<Row>(`update members set role = ? where id = ? returning ${COLUMNS}`, [role, memberId])
    await keepOneOwner(q, accountId)
    await audit(q, acting, {
      accountId,
      action: 'member.role_changed',
      target: { type: 'member', id: memberId },
      details: { email: before.email, from: before.role, to: role },
    })
    return view(row!)
  })
}

/** Removes a member (their sessions end with the row). */
export async function removeMember(db: Database, accountId: string, memberId: string, acting: Acting): Promise<Member> {
  return db.tx(async (q) => {
    await lockOwners(q, accountId)
    const before = await memberOf(q, accountId, memberId)
    refuseRole(acting, before.role)
    await q.sql(`delete from members where id = ?`, [memberId])
    await keepOneOwner(q, accountId)
    await audit(q, acting, {
      accountId,
      action: 'member.removed',
      target: { type: 'member', id: memberId },
      details: { email: before.email, role: before.role },
    })
    return view(before)
  })
}
