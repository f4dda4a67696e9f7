// GET/POST /v1/keys, PATCH/DELETE /v1/keys/{id} (C18): the account's keys through the API, for keys with
// permissions "all". The dashboard's keys page uses the same checks (checkScope): a scope names real capabilities,
// and a key never gets more power than the one who makes it (a developer makes call and read keys only).
import type Router from '@koa/router'
import { Type } from '@sinclair/typebox'
import { ApiError, type ErrorDetail } from '../errors.ts'
import { keyActing } from '../audit/audit.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { jsonBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { KEY_PERMISSIONS, roleMay, type Role } from '../roles.ts'
import { inputReader } from '../validation.ts'
import { KEY_MODES } from '../http/caller.ts'
import { createKey, listKeys, revokeKey, updateKey, type KeyScope } from './keys.ts'

const Permissions = Type.Union(
  KEY_PERMISSIONS.map((p) => Type.Literal(p)),
  {
    description: 'all: everything, account management included; call: capabilities and reads; read: reads only',
  },
)
const Capabilities = Type.Union(
  [Type.Array(Type.String({ pattern: '^[a-z0-9-]{1,64}$' }), { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()],
  { description: 'the only capabilities the key may call; null or absent: every one' },
)
const SpendCap = Type.Union([Type.Integer({ minimum: 0, maximum: 1e12 }), Type.Null()], {
  description: 'credits per calendar month (UTC); the Team plan',
})

export const KeyInput = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    mode: Type.Optional(Type.Union(KEY_MODES.map((m) => Type.Literal(m)))),
    permissions: Type.Optional(Permissions),
    capabilities: Type.Optional(Capabilities),
    monthlySpendCap: Type.Optional(SpendCap),
  },
  { additionalProperties: false },
)

export const KeyPatch = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    permissions: Type.Optional(Permissions),
    capabilities: Type.Optional(Capabilities),
    monthlySpendCap: Type.Optional(SpendCap),
  },
  { additionalProperties: false, minProperties: 1 },
)

const DateTime = Type.String({ format: 'date-time' })
/** Published as components.schemas.ApiKey: never the key itself, nor its hash. */
export const ApiKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    prefix: Type.String({ description: 'the first 12 characters, as the dashboard and the request log show them' }),
    name: Type.Union([Type.String(), Type.Null()]),
    mode: Type.Union(KEY_MODES.map((m) => Type.Literal(m))),
    permissions: Permissions,
    capabilities: Type.Union([Type.Array(Type.String()), Type.Null()]),
    monthlySpendCap: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: DateTime,
    revokedAt: Type.Union([DateTime, Type.Null()]),
  },
  { additionalProperties: false },
)
export const ApiKeyCreated = Type.Composite([ApiKey, Type.Object({ key: Type.String({ description: 'shown once' }) })], {
  additionalProperties: false,
})
export const KeyList = Type.Object({ keys: Type.Array(ApiKey) }, { additionalProperties: false })
export const KeyRevoked = Type.Object({ id: Type.String({ format: 'uuid' }), revokedAt: DateTime }, { additionalProperties: false })

/**
 * A scope the account may give: every capability exists, and only someone who manages members (owner, admin, or an
 * `all` key acting as admin) gives a key `all`, which manages members too.
 */
export function checkScope(services: Services, scope: KeyScope, role: Role): void {
  // Permissions left out (a change that keeps them) are not checked again.
  const unknown: ErrorDetail[] = (scope.capabilities ?? []).flatMap((name, i) =>
    services.capabilities.has(name) ? [] : [{ path: `/capabilities/${i}`, message: `no capability named ${name}` }],
  )
  if (unknown.length) throw new ApiError('invalid_request', 'The key names a capability this service does not have.', unknown)
  if (scope.permissions === 'all' && !roleMay(role, 'members.write'))
    throw new ApiError(
      'permission_denied',
      `A key with permissions "all" manages members, which a ${role} may not: choose "call" or "read".`,
    )
}

export function keysRouter(services: Services): Router {
  const router = strictRouter()
  const manage = keyAccess(services.keys, 'manage')
  const body = jsonBodyReader(64 * 1024)
  const v = { create: inputReader(KeyInput, 'body'), patch: inputReader(KeyPatch, 'body') }
  router.get('/v1/keys', manage, async (ctx) => {
    ctx.body = { keys: await listKeys(services.db, callerOf(ctx).accountId) }
  })
  router.post('/v1/keys', manage, async (ctx) => {
    const input = await body(ctx, v.create)
    const acting = keyActing(ctx, services.now())
    checkScope(services, { permissions: input.permissions ?? 'all', capabilities: input.capabilities ?? null }, acting.actor.role)
    ctx.status = 201
    ctx.body = await createKey(services.db, callerOf(ctx).accountId, input, services.secrets, acting)
  })
  router.patch('/v1/keys/:id', manage, async (ctx) => {
    const input = await body(ctx, v.patch)
    const acting = keyActing(ctx, services.now())
    checkScope(services, input, acting.actor.role)
    ctx.body = await updateKey(services.db, ctx.params.id!, input, acting, callerOf(ctx).accountId)
  })
  router.delete('/v1/keys/:id', manage, async (ctx) => {
    const now = services.now()
    ctx.body = await revokeKey(services.db, ctx.params.id!, services.keys, now, keyActing(ctx, now), callerOf(ctx).accountId)
  })
  return router
}
