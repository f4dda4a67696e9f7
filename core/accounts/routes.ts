// GET /v1/account (free, any key): the caller's account, balance and plan.
import type Router from '@koa/router'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { accountSummary } from './accounts.ts'

export function accountRouter(services: Services): Router {
  const router = strictRouter()
  router.get('/v1/account', keyAccess(services.keys, 'read'), async (ctx) => {
    ctx.body = await accountSummary(services.db, callerOf(ctx).accountId)
  })
  return router
}
