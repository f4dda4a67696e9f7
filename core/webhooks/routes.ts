// GET /v1/jobs/{id}/deliveries (free, any key): every attempt to deliver a job's webhook, for the job's owner.
import type Router from '@koa/router'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { listAttempts } from './webhooks.ts'

export function deliveriesRouter(services: Services): Router {
  const router = strictRouter()
  router.get('/v1/jobs/:id/deliveries', keyAccess(services.keys, 'read'), async (ctx) => {
    ctx.body = { deliveries: await listAttempts(services.db, ctx.params.id!, callerOf(ctx)) }
  })
  return router
}
