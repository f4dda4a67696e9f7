// GET /v1/requests (bearer key, free): the account's request log, newest first. A live key reads the live
// calls (or, with mode=test, the test ones); a test key reads test calls only, so a key handed out for
// experiments never shows what live keys did. GET /v1/requests/{requestId}: one of them, by its X-Request-Id.
import type Router from '@koa/router'
import { Type, type Static } from '@sinclair/typebox'
import { ApiError } from '../errors.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { findRequest, listRequests, RequestLogEntry, type RequestFilter } from './list.ts'
import { METADATA_KEY, METADATA_LIMITS } from '../http/metadata.ts'

const DateTime = Type.String({ format: 'date-time' })
/** An id core/http/request-id.ts mints: req_ and a ULID. */
const REQUEST_ID = '^req_[0-9A-Z]{26}$'

export const RequestsQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'requests per page, 1–200; default 50' })),
    endpoint: Type.Optional(
      Type.String({
        pattern: '^(?:/v1/)?[a-z0-9-]{1,64}(?:/\\{id\\})?$',
        description: 'the route: a capability (classify or /v1/classify) or e.g. /v1/jobs/{id}',
      }),
    ),
    status: Type.Optional(Type.String({ pattern: '^[1-5](?:\\d\\d|xx)$', description: 'an exact status (402) or a class (4xx)' })),
    keyId: Type.Optional(Type.String({ format: 'uuid' })),
    mode: Type.Optional(
      Type.Union([Type.Literal('live'), Type.Literal('test')], { description: "default: the calling key's; a test key reads test only" }),
    ),
    from: Type.Optional(DateTime),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive' })),
    requestId: Type.Optional(Type.String({ pattern: REQUEST_ID, description: 'the X-Request-Id of a call' })),
    idempotencyKey: Type.Optional(Type.String({ pattern: '^[!-~]{1,128}$', description: 'the Idempotency-Key the calls sent' })),
  },
  {
    additionalProperties: false,
    // metadata.<tag>=<value>: calls whose Service-Metadata has that tag (all of them, when several are given).
    patternProperties: {
      [`^metadata\\.${METADATA_KEY.source.slice(1, -1)}$`]: Type.String({ maxLength: METADATA_LIMITS.valueLength }),
    },
  },
)

export const RequestsPage = Type.Object(
  {
    requests: Type.Array(RequestLogEntry),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
  },
  { additionalProperties: false },
)

/** The query parameters as OpenAPI publishes them (core/openapi/kernel-routes.ts lists the route in KERNEL_ROUTES). */
export const requestsParameters = Object.entries(RequestsQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}))

const readQuery = inputReader(RequestsQuery, 'query')

/** The filter of a checked query; a test key asking for live calls is refused. */
export function requestFilter(q: Static<typeof RequestsQuery>, keyMode: 'live' | 'test'): RequestFilter {
  if (keyMode === 'test' && q.mode === 'live')
    throw new ApiError('invalid_request', 'A test key reads the test-mode log only.', [{ path: '/mode', message: 'live with a test key' }])
  const tags = tagsOf(q)
  const status = q.status?.endsWith('xx') ? { class: Number(q.status[0]) } : q.status ? { exact: Number(q.status) } : undefined
  return {
    mode: q.mode ?? keyMode,
    ...(q.endpoint ? { endpoint: q.endpoint.startsWith('/v1/') ? q.endpoint : `/v1/${q.endpoint}` } : {}),
    ...(status ? { status } : {}),
    ...(q.keyId ? { keyId: q.keyId } : {}),
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
    ...(q.requestId ? { requestId: q.requestId } : {}),
    ...(q.idempotencyKey ? { idempotencyKey: q.idempotencyKey } : {}),
    ...(Object.keys(tags).length ? { metadata: tags } : {}),
  }
}

/** The metadata.<tag> parameters of a checked query, as tags. */
function tagsOf(q: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(q)
      .filter(([name]) => name.startsWith('metadata.'))
      .map(([name, value]) => [name.slice('metadata.'.length), String(value)]),
  )
}

export function requestsRouter(services: Services): Router {
  const router = strictRouter()
  router.get('/v1/requests', keyAccess(services.keys, 'read'), async (ctx) => {
    const caller = callerOf(ctx)
    const q = readQuery({ ...ctx.query })
    const filter = requestFilter(q, caller.mode)
    await services.requestLog.flush() // the calls this process answered just before are listed
    const page: Static<typeof RequestsPage> = await listRequests(services.db, caller.accountId, filter, {
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
    ctx.body = page
  })
  router.get('/v1/requests/:requestId', keyAccess(services.keys, 'read'), async (ctx) => {
    const caller = callerOf(ctx)
    await services.requestLog.flush()
    const id = ctx.params.requestId!
    const found = new RegExp(REQUEST_ID).test(id) ? await findRequest(services.db, caller.accountId, id, caller.mode) : null
    if (!found) throw new ApiError('not_found', 'No request with this id in the log of this account (kept for REQUEST_LOG_RETENTION_DAYS).')
    ctx.body = found satisfies RequestLogEntry
  })
  return router
}
