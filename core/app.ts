// buildApp(services): the Koa app without listen(). It only composes middleware and routes; money, jobs
// and webhooks live in their own modules.
import Koa from 'koa'
import Router from '@koa/router'
import { accountSummary } from './accounts/accounts.ts'
import { adminRouter, bearerMatches } from './admin/routes.ts'
import { ApiError } from './errors.ts'
import { getJob } from './jobs/jobs.ts'
import { accessLog } from './observability/log.ts'
import { runMaintenance } from './jobs/maintenance.ts'
import { buildOpenApi } from './openapi.ts'
import { authenticate } from './pipeline/auth.ts'
import { capabilityCall } from './pipeline/capability-call.ts'
import { errorHandler } from './pipeline/error-handler.ts'
import { requestId } from './pipeline/request-id.ts'
import type { Services } from './services.ts'

export function buildApp(services: Services): Koa {
  const app = new Koa()
  app.proxy = true
  const router = new Router()
  const openapi = JSON.stringify(buildOpenApi([...services.capabilities.values()], services.config))

  for (const cap of services.capabilities.values()) router.post(`/v1/${cap.name}`, capabilityCall(cap, services))

  router.get('/v1/jobs/:id', async (ctx) => {
    const caller = await authenticate(ctx, services.keys)
    ctx.body = await getJob(services.db, caller.accountId, ctx.params.id!)
  })
  router.get('/v1/account', async (ctx) => {
    const caller = await authenticate(ctx, services.keys)
    ctx.body = await accountSummary(services.db, caller.accountId)
  })
  router.get('/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json'
    ctx.body = openapi
  })
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  router.get('/readyz', async (ctx) => {
    try {
      await services.db.sql(`select 1 from schema_migrations limit 1`)
      ctx.body = { status: 'ready' }
    } catch {
      ctx.status = 503
      ctx.body = { status: 'unavailable' }
    }
  })
  router.get('/metrics', async (ctx) => {
    const token = services.config.metricsToken
    if (!token) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    if (!bearerMatches(ctx.get('Authorization'), token)) throw new ApiError('unauthorized', 'The metrics token is not valid.')
    ctx.type = services.metrics.registry.contentType
    ctx.body = await services.metrics.render(services.db)
  })
  router.post('/internal/maintenance', async (ctx) => {
    const secret = services.config.maintenanceSecret
    if (!secret) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    if (!bearerMatches(ctx.get('Authorization'), secret)) throw new ApiError('unauthorized', 'The maintenance secret is not valid.')
    ctx.body = await runMaintenance(services)
  })

  const admin = adminRouter(services)
  app.use(requestId)
  app.use(accessLog(services.logger, services.metrics))
  app.use(errorHandler(services.logger))
  app.use(router.routes())
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ApiError('method_not_allowed', 'This route does not accept that method.'),
      notImplemented: () => new ApiError('method_not_allowed', 'This method is not supported.'),
    }),
  )
  app.use(admin.routes())
  app.use(admin.allowedMethods({ throw: true, methodNotAllowed: () => new ApiError('method_not_allowed', 'This route does not accept that method.') }))
  return app
}
