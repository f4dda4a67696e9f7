// POST /stripe/webhook: Stripe's events, verified against the raw body (no JSON parser before it).
import type Router from '@koa/router'
import { strictRouter } from '../http/routing.ts'
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { stripeWebhook } from './billing.ts'

const LIMIT = 1024 * 1024

async function rawBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > LIMIT) throw new ApiError('payload_too_large', 'The event is larger than 1 MiB.')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

export function stripeRouter(services: Services): Router {
  const router = strictRouter()
  router.post('/stripe/webhook', async (ctx) => {
    if (!services.stripe || !services.config.billing.webhookSecret)
      throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    await stripeWebhook(services, ctx, await rawBody(ctx))
  })
  return router
}
