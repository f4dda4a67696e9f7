// The batch routes (C19). A batch is one request of an endpoint's calls: POST /v1/batches takes the key's
// `call` permission and its scope for that endpoint; the reads take `read`.
import type { Services } from '../services.ts'
import { strictRouter } from '../http/routing.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { acceptBatchRoute } from './accept.ts'
import { cancelBatch } from './cancel.ts'
import { listBatches } from './list.ts'
import { resultLines } from './results.ts'
import { batchView, findBatch } from './view.ts'

export function batchesRouter(services: Services) {
  const router = strictRouter()
  const reads = keyAccess(services.keys, 'read')
  const calls = keyAccess(services.keys, 'call')
  const accept = acceptBatchRoute(services)
  router.post('/v1/batches', calls, (ctx) => accept(ctx, callerOf(ctx)))
  router.get('/v1/batches', reads, async (ctx) => {
    ctx.body = await listBatches(services.db, callerOf(ctx), ctx.query)
  })
  router.get('/v1/batches/:id', reads, async (ctx) => {
    ctx.body = batchView(await findBatch(services.db, callerOf(ctx), ctx.params.id!))
  })
  router.get('/v1/batches/:id/results', reads, async (ctx) => {
    const batch = await findBatch(services.db, callerOf(ctx), ctx.params.id!)
    ctx.type = 'application/x-ndjson'
    ctx.body = resultLines(services.db, batch.id as string)
  })
  router.post('/v1/batches/:id/cancel', calls, async (ctx) => {
    ctx.body = await cancelBatch(services, callerOf(ctx), ctx.params.id!)
  })
  return router
}
