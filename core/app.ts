// buildApp(services): the Koa app without listen(). It only composes middleware and routes; money, jobs
// and webhooks live in their own modules.
import { createServer, type Server } from 'node:http'
import Koa from 'koa'
import { publicOrigin, type Config } from './config.ts'
import { accountSummary } from './accounts/accounts.ts'
import { keysRouter } from './accounts/key-routes.ts'
import { adminRouter } from './admin/routes.ts'
import { auditRouter } from './audit/routes.ts'
import { getJob } from './jobs/view.ts'
import { accessLog } from './observability/log.ts'
import { requestSpans } from './observability/tracing.ts'
import { runMaintenance } from './jobs/maintenance.ts'
import { docsRouter } from './docs/docs.ts'
import { mcpEndpoint, mcpTools, RESOURCE_METADATA_PATHS, resourceMetadata } from './mcp.ts'
import { modelCheckLine } from './models/provider.ts'
import { buildOpenApi } from './openapi.ts'
import { stripeRouter } from './billing/routes.ts'
import { dashboardRouter } from './dashboard/routes.ts'
import { usageRouter } from './usage/routes.ts'
import { requestRecorder } from './requests/record.ts'
import { requestsRouter } from './requests/routes.ts'
import { listJobs } from './jobs/list.ts'
import { callerOf, keyAccess } from './pipeline/permissions.ts'
import { capabilityCall } from './pipeline/capability-call.ts'
import { errorHandler } from './pipeline/error-handler.ts'
import { requestId } from './pipeline/request-id.ts'
import { methodRefusals, operatorGate, strictRouter } from './pipeline/routing.ts'
import type { Services } from './services.ts'
import { ssoRouter } from './sso/routes.ts'
import { reviewsRouter } from './reviews/routes.ts'
import { listAttempts } from './webhooks/webhooks.ts'
import { teamRouter } from './teams/routes.ts'

export function buildApp(services: Services): Koa {
  const app = new Koa()
  // ctx.ip: the entry `proxyHops` from the right of X-Forwarded-For (Koa reads only the last maxIpsCount entries).
  app.proxy = services.config.proxyHops > 0
  app.maxIpsCount = services.config.proxyHops
  const router = strictRouter()
  const capabilities = [...services.capabilities.values()]
  const document = buildOpenApi(capabilities, services.config, services.provider)
  const openapi = JSON.stringify(document)

  for (const cap of services.capabilities.values()) router.post(`/v1/${cap.name}`, capabilityCall(cap, services))

  const reads = keyAccess(services.keys, 'read')
  router.get('/v1/jobs', reads, async (ctx) => {
    ctx.body = await listJobs(services.db, callerOf(ctx), ctx.query)
  })
  router.get('/v1/jobs/:id', reads, async (ctx) => {
    ctx.body = await getJob(services.db, callerOf(ctx), ctx.params.id!)
  })
  router.get('/v1/jobs/:id/deliveries', reads, async (ctx) => {
    ctx.body = { deliveries: await listAttempts(services.db, ctx.params.id!, callerOf(ctx)) }
  })
  router.get('/v1/account', reads, async (ctx) => {
    ctx.body = await accountSummary(services.db, callerOf(ctx).accountId)
  })
  router.get('/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json'
    ctx.body = openapi
  })
  // The MCP tools dispatch through this same app (its whole middleware chain), never around it.
  let listener: ReturnType<Koa['callback']> | null = null
  router.post(
    '/mcp',
    mcpEndpoint(services, mcpTools(capabilities, document), () => (listener ??= app.callback())),
  )
  for (const path of RESOURCE_METADATA_PATHS) router.get(path, resourceMetadata(services.config))
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' }
  })
  router.get('/readyz', async (ctx) => {
    try {
      await services.db.sql(`select 1 from schema_migrations limit 1`)
      // Ready whatever the model check said (the other calls are served); a model it found missing is said here.
      const models = services.provider.modelReport?.()
      ctx.body = {
        status: 'ready',
        ...(models?.missing.length ? { models: { missing: models.missing, detail: modelCheckLine(models) } } : {}),
      }
    } catch {
      ctx.status = 503
      ctx.body = { status: 'unavailable' }
    }
  })
  // METRICS_TOKEN and MAINTENANCE_SECRET are checked by operatorGate, before routing.
  router.get('/metrics', async (ctx) => {
    ctx.type = services.metrics.registry.contentType
    ctx.body = await services.metrics.render(services.db)
  })
  router.post('/internal/maintenance', async (ctx) => {
    ctx.body = await runMaintenance(services)
  })

  const admin = adminRouter(services)
  app.use(requestId)
  app.use(requestSpans)
  app.use(accessLog(services.logger, services.metrics))
  app.use(requestRecorder(services.requestLog, services.now, services.keys))
  app.use(errorHandler(services.logger))
  app.use(operatorGate(services.config, services.keys.failures))
  app.use(methodRefusals)
  app.use(router.routes())
  app.use(docsRouter().routes())
  const origin = () => publicOrigin(services.config)
  for (const r of [
    usageRouter(services),
    requestsRouter(services),
    keysRouter(services),
    teamRouter(services, origin),
    auditRouter(services),
    ssoRouter(services, origin),
    reviewsRouter(services),
    stripeRouter(services),
    dashboardRouter(services),
  ])
    app.use(r.routes())
  app.use(admin.routes())
  return app
}

/** The HTTP server of an app, with the timeouts of config.http (sized for the 20 MiB body limit). */
export function httpServer(app: Koa, config: Config): Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.http
  const handle = app.callback() // Koa answers every error itself; the promise never rejects
  return createServer(
    {
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
    (req, res) => void handle(req, res),
  )
}
