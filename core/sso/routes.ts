// GET/PUT/DELETE /v1/sso (C18), for keys with permissions "all". The client secret is write-only.
import type Router from '@koa/router'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../errors.ts'
import { keyActing } from '../audit/audit.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { jsonBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { getSso, putSso, removeSso, SsoInput } from './settings.ts'

export const SsoRemoved = Type.Object({ removed: Type.Literal(true) }, { additionalProperties: false })

export function ssoRouter(services: Services, origin: () => string): Router {
  const router = strictRouter()
  const manage = keyAccess(services.keys, 'manage')
  const body = jsonBodyReader(16 * 1024)
  const readInput = inputReader(SsoInput, 'body')
  router.get('/v1/sso', manage, async (ctx) => {
    const settings = await getSso(services.db, callerOf(ctx).accountId, origin())
    if (!settings) throw new ApiError('not_found', 'Single sign-on is not set up for this account.')
    ctx.body = settings
  })
  router.put('/v1/sso', manage, async (ctx) => {
    const input = await body(ctx, readInput)
    ctx.body = await putSso(services, callerOf(ctx).accountId, input, keyActing(ctx, services.now()), origin())
  })
  router.delete('/v1/sso', manage, async (ctx) => {
    await removeSso(services.db, callerOf(ctx).accountId, keyActing(ctx, services.now()))
    ctx.body = { removed: true }
  })
  return router
}
