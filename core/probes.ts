// What operators and orchestrators poll: GET /healthz (the process answers), GET /readyz (its database answers;
// a model the provider check found missing is named) and GET /metrics (METRICS_TOKEN, checked by operatorGate
// before routing).
import type Router from '@koa/router'
import { strictRouter } from './http/routing.ts'
import { modelCheckLine } from './models/provider.ts'
import type { Services } from './services.ts'

export function probesRouter(services: Services): Router {
  const router = strictRouter()
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
  router.get('/metrics', async (ctx) => {
    ctx.type = services.metrics.registry.contentType
    ctx.body = await services.metrics.render(services.db)
  })
  return router
}
