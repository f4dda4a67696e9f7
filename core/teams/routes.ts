// GET/POST /v1/members, PATCH/DELETE /v1/members/{id}, GET/POST/DELETE /v1/invitations (C18), for keys with
// permissions "all", which act as an admin: everything but granting, changing or removing the owner role.
import type Router from '@koa/router'
import { Type } from '@sinclair/typebox'
import { keyActing } from '../audit/audit.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { jsonBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { Invitation, invite, listInvitations, revokeInvitation } from './invitations.ts'
import { addMember, changeRole, listMembers, Member, removeMember, RoleSchema } from './members.ts'

const Email = Type.String({ format: 'email', maxLength: 254 })
export const MemberInput = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false })
export const RoleInput = Type.Object({ role: RoleSchema }, { additionalProperties: false })
export const MemberList = Type.Object({ members: Type.Array(Member) }, { additionalProperties: false })
export const InvitationList = Type.Object({ invitations: Type.Array(Invitation) }, { additionalProperties: false })

export function teamRouter(services: Services, origin: () => string): Router {
  const router = strictRouter()
  const manage = keyAccess(services.keys, 'manage')
  const body = jsonBodyReader(16 * 1024)
  const v = { member: inputReader(MemberInput, 'body'), role: inputReader(RoleInput, 'body') }
  const { db } = services
  router.get('/v1/members', manage, async (ctx) => {
    ctx.body = { members: await listMembers(db, callerOf(ctx).accountId) }
  })
  router.post('/v1/members', manage, async (ctx) => {
    const input = await body(ctx, v.member)
    ctx.status = 201
    ctx.body = await addMember(db, callerOf(ctx).accountId, input, keyActing(ctx, services.now()))
  })
  router.patch('/v1/members/:id', manage, async (ctx) => {
    const { role } = await body(ctx, v.role)
    ctx.body = await changeRole(db, callerOf(ctx).accountId, ctx.params.id!, role, keyActing(ctx, services.now()))
  })
  router.delete('/v1/members/:id', manage, async (ctx) => {
    ctx.body = await removeMember(db, callerOf(ctx).accountId, ctx.params.id!, keyActing(ctx, services.now()))
  })
  router.get('/v1/invitations', manage, async (ctx) => {
    ctx.body = { invitations: await listInvitations(db, callerOf(ctx).accountId, services.now()) }
  })
  router.post('/v1/invitations', manage, async (ctx) => {
    const input = await body(ctx, v.member)
    ctx.status = 201
    ctx.body = await invite(services, callerOf(ctx).accountId, input, keyActing(ctx, services.now()), origin())
  })
  router.delete('/v1/invitations/:id', manage, async (ctx) => {
    ctx.body = await revokeInvitation(db, callerOf(ctx).accountId, ctx.params.id!, keyActing(ctx, services.now()))
  })
  return router
}
