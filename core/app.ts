// buildApp(services): the Koa app without listen(). It only composes: the middleware in C1's order, then each
// concern's router (the module that owns a route builds it); money, jobs and webhooks live in their own modules.
import { createServer, type Server } from 'node:http'
import Koa from 'koa'
import { publicOrigin, type Config } from './config.ts'
import { keysRouter } from './accounts/key-routes.ts'
import { accountRouter } from './accounts/routes.ts'
import { adminRouter } from './admin/routes.ts'
import { auditRouter } from './audit/routes.ts'
import { eventsRouter } from './events/routes.ts'
import { batchesRouter } from './batches/routes.ts'
import { stripeRouter } from './billing/routes.ts'
import { dashboardRouter } from './dashboard/routes.ts'
import { docsRouter } from './docs/docs.ts'
import { errorHandler } from './http/error-handler.ts'
import { requestId } from './http/request-id.ts'
import { methodRefusals, operatorGate } from './http/routing.ts'
import { jobsRouter } from './jobs/routes.ts'
import { maintenanceRouter } from './maintenance.ts'
import { mcpRouter, mcpTools } from './mcp.ts'
import { accessLog } from './observability/log.ts'
import { requestSpans } from './observability/tracing.ts'
import { buildOpenApi, openApiRouter } from './openapi.ts'
import { capabilityRouter } from './pipeline/capability-call.ts'
import { probesRouter } from './probes.ts'
import { requestRecorder } from './requests/record.ts'
import { requestsRouter } from './requests/routes.ts'
import type { Services } from './services.ts'
import { ssoRouter } from './sso/routes.ts'
import { reviewsRouter } from './reviews/routes.ts'
import { teamRouter } from './teams/routes.ts'
import { usageRouter } from './usage/routes.ts'
import { deliveriesRouter } from './webhooks/routes.ts'

export function buildApp(services: Services): Koa {
  const app = new Koa()
  // ctx.ip: the entry `proxyHops` from the right of X-Forwarded-For (Koa reads only the last maxIpsCount entries).
  app.proxy = services.config.proxyHops > 0
  app.maxIpsCount = services.config.proxyHops
  const capabilities = [...services.capabilities.values()]
  const document = buildOpenApi(capabilities, services.config, services.provider)
  // The MCP tools dispatch through this same app (its whole middleware chain), never around it.
  let listener: ReturnType<Koa['callback']> | null = null
  const dispatch = () => (listener ??= app.callback())

  app.use(requestId)
  app.use(requestSpans)
  app.use(accessLog(services.logger, services.metrics))
  app.use(requestRecorder(services.requestLog, services.now, services.keys))
  app.use(errorHandler(services.logger))
  app.use(operatorGate(services.config, services.keys.failures))
  app.use(methodRefusals)
  const origin = () => publicOrigin(services.config)
  for (const r of [
    capabilityRouter(services),
    jobsRouter(services),
    deliveriesRouter(services),
    accountRouter(services),
    openApiRouter(document),
    mcpRouter(services, mcpTools(capabilities, document), dispatch),
    probesRouter(services),
    maintenanceRouter(services),
    docsRouter(),
    batchesRouter(services),
    usageRouter(services),
    requestsRouter(services),
    keysRouter(services),
    teamRouter(services, origin),
    auditRouter(services),
    eventsRouter(services),
    ssoRouter(services, origin),
    reviewsRouter(services),
    stripeRouter(services),
    dashboardRouter(services),
    adminRouter(services),
  ])
    app.use(r.routes())
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
