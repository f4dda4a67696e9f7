// GET /v1/jobs and GET /v1/jobs/{id} (free, any key): the caller's own jobs, in its key's mode.
import type Router from '@koa/router'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { listJobs } from './list.ts'
import { getJob } from './view.ts'

export function jobsRouter(services: Services): Router {
  const router = strictRouter()
  const reads = keyAccess(services.keys, 'read')
  router.get('/v1/jobs', reads, async (ctx) => {
    ctx.body = await listJobs(services.db, callerOf(ctx), ctx.query)
  })
  router.get('/v1/jobs/:id', reads, async (ctx) => {
    ctx.body = await getJob(services.db, callerOf(ctx), ctx.params.id!)
  })
  return router
}
