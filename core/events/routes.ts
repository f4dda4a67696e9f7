// The routes of C17: webhook endpoints and alerts (keys with permissions "all"), the event log (any key, of its own
// mode) and resend (permissions "all").
import type Router from '@koa/router'
import type { Context } from 'koa'
import { keyActing } from '../audit/audit.ts'
import { jsonBodyReader } from '../http/body.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import { checkCallbackUrl } from '../webhooks/webhooks.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { AlertInput, getAlerts, putAlerts } from './alerts.ts'
import {
  createEndpoint,
  deleteEndpoint,
  EndpointInput,
  EndpointPatch,
  getEndpoint,
  listEndpoints,
  pingEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpoints.ts'
import { EventsQuery, getEvent, listEvents, resendEvent, ResendInput, type Reader } from './log.ts'

const readerOf = (ctx: Context): Reader => {
  const caller = callerOf(ctx)
  return { accountId: caller.accountId, livemode: caller.mode === 'live' }
}

export function eventsRouter(services: Services): Router {
  const router = strictRouter()
  const manage = keyAccess(services.keys, 'manage')
  const reads = keyAccess(services.keys, 'read')
  const body = jsonBodyReader(64 * 1024)
  const v = {
    create: inputReader(EndpointInput, 'body'),
    patch: inputReader(EndpointPatch, 'body'),
    alerts: inputReader(AlertInput, 'body'),
    resend: inputReader(ResendInput, 'body'),
    events: inputReader(EventsQuery, 'query'),
  }
  const account = (ctx: Context) => callerOf(ctx).accountId

  router.get('/v1/webhook-endpoints', manage, async (ctx) => {
    ctx.body = { endpoints: await listEndpoints(services.db, account(ctx)) }
  })
  router.post('/v1/webhook-endpoints', manage, async (ctx) => {
    const input = await body(ctx, v.create)
    await checkCallbackUrl(input.url, services, 'url')
    ctx.status = 201
    ctx.body = await createEndpoint(services.db, services.secrets, account(ctx), input, keyActing(ctx, services.now()))
  })
  router.get('/v1/webhook-endpoints/:id', manage, async (ctx) => {
    ctx.body = await getEndpoint(services.db, account(ctx), ctx.params.id!)
  })
  router.patch('/v1/webhook-endpoints/:id', manage, async (ctx) => {
    const patch = await body(ctx, v.patch)
    if (patch.url) await checkCallbackUrl(patch.url, services, 'url')
    ctx.body = await updateEndpoint(services.db, account(ctx), ctx.params.id!, patch, keyActing(ctx, services.now()))
  })
  router.delete('/v1/webhook-endpoints/:id', manage, async (ctx) => {
    await deleteEndpoint(services.db, account(ctx), ctx.params.id!, keyActing(ctx, services.now()))
    ctx.status = 204
  })
  router.post('/v1/webhook-endpoints/:id/rotate-secret', manage, async (ctx) => {
    ctx.body = await rotateEndpointSecret(services.db, services.secrets, account(ctx), ctx.params.id!, keyActing(ctx, services.now()))
  })
  router.post('/v1/webhook-endpoints/:id/test', manage, async (ctx) => {
    ctx.status = 202
    ctx.body = await pingEndpoint(services.db, account(ctx), ctx.params.id!, keyActing(ctx, services.now()))
  })

  router.get('/v1/events', reads, async (ctx) => {
    const q = v.events({ ...ctx.query })
    ctx.body = await listEvents(services.db, readerOf(ctx), {
      limit: q.limit ? Number(q.limit) : 20,
      ...(q.type ? { type: q.type } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
  })
  router.get('/v1/events/:id', reads, async (ctx) => {
    ctx.body = await getEvent(services.db, readerOf(ctx), ctx.params.id!)
  })
  router.post('/v1/events/:id/resend', manage, async (ctx) => {
    const input = await body(ctx, v.resend)
    ctx.status = 202
    ctx.body = await resendEvent(services.db, readerOf(ctx), ctx.params.id!, input.endpointId, keyActing(ctx, services.now()))
  })

  router.get('/v1/alerts', manage, async (ctx) => {
    ctx.body = await getAlerts(services.db, account(ctx))
  })
  router.put('/v1/alerts', manage, async (ctx) => {
    const input = await body(ctx, v.alerts)
    ctx.body = await putAlerts(services.db, account(ctx), input, keyActing(ctx, services.now()))
  })
  return router
}
