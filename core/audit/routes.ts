// GET /v1/audit-log and GET /v1/audit-log/export (CSV), for keys with permissions "all" (C18).
import type Router from '@koa/router'
import { Type, type Static } from '@sinclair/typebox'
import { callerOf, keyAccess } from '../http/permissions.ts'
import { strictRouter } from '../http/routing.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { auditCsv, listAudit, type AuditFilter } from './list.ts'

const Filters = {
  action: Type.Optional(
    Type.String({ pattern: '^[a-z_]{1,40}(?:\\.[a-z_]{1,40})?$', description: 'key.created, or key for every key.* action' }),
  ),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 254,
      pattern: '^[^\\u0000-\\u001f\\u007f]*$',
      description: 'a member or key id, an email, a key prefix, or operator | system | member | key',
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive' })),
}

export const AuditQuery = Type.Object(
  {
    ...Filters,
    cursor: Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.String({ pattern: '^(?:[1-9]\\d?|1\\d\\d|200)$', description: '1–200, default 50' })),
  },
  { additionalProperties: false },
)
export const AuditExportQuery = Type.Object(Filters, { additionalProperties: false })

const parameters = (schema: { properties: Record<string, unknown> }) =>
  Object.entries(schema.properties).map(([name, s]) => ({ name, in: 'query', required: false, schema: s }))
/** The query parameters as OpenAPI publishes them. */
export const auditParameters = parameters(AuditQuery)
export const auditExportParameters = parameters(AuditExportQuery)

export function auditFilter(q: Static<typeof AuditExportQuery>): AuditFilter {
  return {
    ...(q.action ? { action: q.action } : {}),
    ...(q.actor ? { actor: q.actor } : {}),
    ...(q.from ? { from: new Date(q.from) } : {}),
    ...(q.to ? { to: new Date(q.to) } : {}),
  }
}

export function auditRouter(services: Services): Router {
  const router = strictRouter()
  const manage = keyAccess(services.keys, 'manage')
  const readQuery = inputReader(AuditQuery, 'query')
  const readExport = inputReader(AuditExportQuery, 'query')
  router.get('/v1/audit-log', manage, async (ctx) => {
    const q = readQuery({ ...ctx.query })
    ctx.body = await listAudit(services.db, callerOf(ctx).accountId, auditFilter(q), {
      limit: q.limit ? Number(q.limit) : 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
  })
  router.get('/v1/audit-log/export', manage, async (ctx) => {
    const filter = auditFilter(readExport({ ...ctx.query }))
    ctx.type = 'text/csv; charset=utf-8'
    ctx.attachment(`audit-log-${services.now().toISOString().slice(0, 10)}.csv`)
    ctx.body = await auditCsv(services.db, callerOf(ctx).accountId, filter)
  })
  return router
}
