// DELETE /v1/cache: the account's cached results of the key's mode, gone (C20). The next identical calls run
// again at their full price. A key with permissions "all", as for every change of the account's settings.
import type Router from '@koa/router'
import { Type } from '@sinclair/typebox'
import { callerOf, keyAccess, keyActing } from '../pipeline/permissions.ts'
import { strictRouter } from '../pipeline/routing.ts'
import type { Services } from '../services.ts'
import { emptyCache } from './store.ts'

export const CacheEmptied = Type.Object(
  {
    results: Type.Integer({ minimum: 0, description: 'cached results removed' }),
    livemode: Type.Boolean({ description: 'the mode whose results were removed: the key’s' }),
  },
  { additionalProperties: false },
)

export function cacheRouter(services: Services): Router {
  const router = strictRouter()
  router.delete('/v1/cache', keyAccess(services.keys, 'manage'), async (ctx) => {
    const caller = callerOf(ctx)
    const livemode = caller.mode === 'live'
    ctx.body = { results: await emptyCache(services.db, caller.accountId, livemode, keyActing(ctx, services.now())), livemode }
  })
  return router
}
