// GET/PUT /v1/review-settings, GET /v1/reviews, GET /v1/reviews/{id}, POST /v1/reviews/{id}/complete (C21). Reading
// the queue needs any key; the settings and completing a review change the account: keys with permissions "all"
// (C18). A key sees the reviews of its own mode only.
import type Router from '@koa/router'
import { keyActing } from '../audit/audit.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { jsonBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { CompleteInput, completeReview, getReview, listReviews, ReviewsQuery, type Scope } from './queue.ts'
import { getReviewSettings, putReviewSettings, ReviewSettingsInput } from './settings.ts'

/** The query parameters as OpenAPI publishes them. */
export const reviewsParameters = Object.entries(ReviewsQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}))

export function reviewsRouter(services: Services): Router {
  const router = strictRouter()
  const reads = keyAccess(services.keys, 'read')
  const manage = keyAccess(services.keys, 'manage')
  const body = jsonBodyReader(1024 * 1024)
  const readSettings = inputReader(ReviewSettingsInput, 'body')
  const readComplete = inputReader(CompleteInput, 'body')
  const readQuery = inputReader(ReviewsQuery, 'query')
  const scope = (ctx: Parameters<typeof callerOf>[0]): Scope => {
    const caller = callerOf(ctx)
    return { accountId: caller.accountId, livemode: caller.mode === 'live' }
  }

  router.get('/v1/review-settings', manage, async (ctx) => {
    ctx.body = await getReviewSettings(services.db, callerOf(ctx).accountId)
  })
  router.put('/v1/review-settings', manage, async (ctx) => {
    const input = await body(ctx, readSettings)
    ctx.body = await putReviewSettings(
      services.db,
      services.keys,
      services.capabilities,
      callerOf(ctx).accountId,
      input,
      keyActing(ctx, services.now()),
    )
  })
  router.get('/v1/reviews', reads, async (ctx) => {
    ctx.body = await listReviews(services.db, scope(ctx), readQuery({ ...ctx.query }))
  })
  router.get('/v1/reviews/:id', reads, async (ctx) => {
    ctx.body = await getReview(services.db, scope(ctx), ctx.params.id!)
  })
  router.post('/v1/reviews/:id/complete', manage, async (ctx) => {
    const input = await body(ctx, readComplete)
    ctx.body = await completeReview(services.db, services.capabilities, scope(ctx), ctx.params.id!, input, keyActing(ctx, services.now()))
  })
  return router
}
