// GET /v1/usage (free, bearer key): the caller's ledger with a cursor, filters and daily totals per endpoint.
// DELETE /v1/cache: the account's cached results of the key's mode, gone (core/cache/, C20): the next identical calls
// run again at their full price. A live key with permissions "all", as for every change of the account's settings.
// GET /v1/usage/summary: calls, credits, errors and latency percentiles per day, endpoint, key or tag, from the rollups.
// GET /v1/usage/export: the ledger's charges of a window, streamed as CSV or JSON lines.
import type Router from '@koa/router'
import { ApiError } from '../errors.ts'
import { METADATA_KEY } from '../http/metadata.ts'
import { Readable } from 'node:stream'
import { ledgerExport } from '../records/export.ts'
import { usageSummary, type SummaryGroupBy } from '../records/rollups.ts'
import { strictRouter } from '../http/routing.ts'
import { Type } from '@sinclair/typebox'
import { audit, keyActing } from '../audit/audit.ts'
import { emptyCache } from '../cache/store.ts'
import { callerOf, keyAccess } from '../http/permissions.ts'
import type { Services } from '../services.ts'
import { inputReader } from '../validation.ts'
import { Size } from '../wallet/wallet.ts'
import { dailyTotals, listLedger } from './usage.ts'

const DateTime = Type.String({ format: 'date-time' })

export const UsageQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'entries per page, 1–200; default 50' })),
    endpoint: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,64}$' })),
    keyId: Type.Optional(Type.String({ format: 'uuid' })),
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
)

const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([Type.Literal('purchase'), Type.Literal('plan_grant'), Type.Literal('charge'), Type.Literal('adjustment')]),
    amount: Type.Integer({ description: 'Credits; negative for a charge' }),
    balanceAfter: Type.Integer(),
    createdAt: DateTime,
    endpoint: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    keyId: Type.Optional(Type.String({ format: 'uuid' })),
    reference: Type.Optional(Type.String()),
    size: Type.Optional(Size),
  },
  { additionalProperties: false },
)

export const UsageResponse = Type.Object(
  {
    entries: Type.Array(LedgerEntry),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
    daily: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date' }),
          endpoint: Type.String(),
          calls: Type.Integer(),
          credits: Type.Integer(),
          cachedCalls: Type.Optional(
            Type.Integer({ minimum: 1, description: 'of those calls, the ones answered from the result cache (at the hit price)' }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Charged calls per UTC day and endpoint over from/to (default: the last 30 days)' },
    ),
  },
  { additionalProperties: false },
)

export const CacheEmptied = Type.Object(
  {
    results: Type.Integer({ minimum: 0, description: 'cached results removed' }),
    livemode: Type.Boolean({ description: 'the mode whose results were removed: the key’s' }),
  },
  { additionalProperties: false },
)

/** The query parameters as OpenAPI publishes them (core/openapi/kernel-routes.ts lists the route in KERNEL_ROUTES). */
export const usageParameters = Object.entries(UsageQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}))

const readQuery = inputReader(UsageQuery, 'query')

/** The longest window GET /v1/usage/summary answers (the rollups are kept as long). */
export const SUMMARY_MAX_DAYS = 400

export const UsageSummaryQuery = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'start of the window, inclusive; a whole UTC hour' }),
    to: Type.String({ format: 'date-time', description: 'end of the window, exclusive; a whole UTC hour, at most 400 days after from' }),
    groupBy: Type.String({
      pattern: `^(day|endpoint|key|metadata\\.${METADATA_KEY.source.slice(1, -1)})$`,
      description: 'day (UTC), endpoint, key (its id), or metadata.<tag>: the values of one Service-Metadata tag',
    }),
  },
  { additionalProperties: false },
)

const Count = Type.Integer({ minimum: 0 })
const Latency = Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
  description: 'ms; the upper bound of the latency bucket (25% wide) holding the percentile; null without calls',
})

export const UsageSummaryResponse = Type.Object(
  {
    from: DateTime,
    to: DateTime,
    groupBy: Type.String(),
    groups: Type.Array(
      Type.Object(
        { key: Type.String(), calls: Count, credits: Count, errors: Count, p50Ms: Latency, p95Ms: Latency },
        { additionalProperties: false },
      ),
    ),
    total: Type.Object({ calls: Count, credits: Count, errors: Count }, { additionalProperties: false }),
  },
  { additionalProperties: false },
)

/** A window the published examples use (docs/examples.md). */
const EXAMPLE_WINDOW: Record<string, string> = {
  from: '2026-11-01T00:00:00Z',
  to: '2026-11-02T00:00:00Z',
  groupBy: 'endpoint',
  format: 'csv',
}

export const usageSummaryParameters = Object.entries(UsageSummaryQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: true,
  schema,
  example: EXAMPLE_WINDOW[name],
}))

const readSummaryQuery = inputReader(UsageSummaryQuery, 'query')

export const UsageExportQuery = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'start of the window, inclusive' }),
    to: Type.String({ format: 'date-time', description: 'end of the window, exclusive' }),
    format: Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
      description: 'csv (with a header line) or jsonl (one JSON object a line)',
    }),
    columns: Type.Optional(
      Type.Literal('focus', {
        description: 'FOCUS column names (ChargePeriodStart, BilledCost, ServiceName, …) instead of the standard ones',
      }),
    ),
  },
  { additionalProperties: false },
)

export const usageExportParameters = Object.entries(UsageExportQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: name !== 'columns',
  schema,
  ...(name in EXAMPLE_WINDOW ? { example: EXAMPLE_WINDOW[name] } : {}),
}))

const readExportQuery = inputReader(UsageExportQuery, 'query')

function summaryWindow(q: { from: string; to: string }): { from: Date; to: Date } {
  const from = new Date(q.from)
  const to = new Date(q.to)
  const wrong = (path: string, message: string) =>
    new ApiError('invalid_request', `The window is not valid: ${message}.`, [{ path, message }])
  for (const [path, at] of [
    ['/from', from],
    ['/to', to],
  ] as const) {
    if (at.getTime() % 3600_000 !== 0) throw wrong(path, 'must be a whole UTC hour (the summary is kept per hour)')
  }
  if (to <= from) throw wrong('/to', 'must be after from')
  if (to.getTime() - from.getTime() > SUMMARY_MAX_DAYS * 86400_000) throw wrong('/to', `at most ${SUMMARY_MAX_DAYS} days after from`)
  return { from, to }
}

export function usageRouter(services: Services): Router {
  const router = strictRouter()
  router.get('/v1/usage', keyAccess(services.keys, 'read'), async (ctx) => {
    const caller = callerOf(ctx)
    const q = readQuery({ ...ctx.query })
    // A test key never spends, so its ledger is empty; it does not read the live one (issue 30).
    if (caller.mode === 'test') return void (ctx.body = { entries: [], daily: [] })
    const to = q.to ? new Date(q.to) : undefined
    const from = q.from ? new Date(q.from) : undefined
    const filter = {
      ...(q.endpoint ? { endpoint: q.endpoint } : {}),
      ...(q.keyId ? { keyId: q.keyId } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    }
    const page = await listLedger(services.db, caller.accountId, filter, {
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
    const dailyFrom = from ?? new Date((to ?? services.now()).getTime() - 30 * 86400_000)
    ctx.body = { ...page, daily: await dailyTotals(services.db, caller.accountId, { ...filter, from: dailyFrom }) }
  })
  router.delete('/v1/cache', keyAccess(services.keys, 'manage'), async (ctx) => {
    const { accountId, mode } = callerOf(ctx)
    const livemode = mode === 'live'
    const acting = keyActing(ctx, services.now())
    const results = await services.db.tx(async (q) => {
      const n = await emptyCache(q, accountId, livemode)
      await audit(q, acting, { accountId, action: 'cache.emptied', target: { type: 'cache', id: mode }, details: { results: n } })
      return n
    })
    ctx.body = { results, livemode }
  })
  router.get('/v1/usage/summary', keyAccess(services.keys, 'read'), async (ctx) => {
    const caller = callerOf(ctx)
    const q = readSummaryQuery({ ...ctx.query })
    const window = summaryWindow(q)
    const groupBy = q.groupBy as SummaryGroupBy
    const summary = await usageSummary(services.db, caller.accountId, caller.mode === 'live', window, groupBy)
    ctx.body = { from: window.from.toISOString(), to: window.to.toISOString(), groupBy, ...summary }
  })
  router.get('/v1/usage/export', keyAccess(services.keys, 'read'), async (ctx) => {
    const caller = callerOf(ctx)
    const q = readExportQuery({ ...ctx.query })
    const from = new Date(q.from)
    const to = new Date(q.to)
    if (to <= from)
      throw new ApiError('invalid_request', 'The window is not valid: to must be after from.', [
        { path: '/to', message: 'must be after from' },
      ])
    // A test key never spends: its export is the header alone.
    const window = caller.mode === 'live' ? { from, to } : { from, to: from }
    ctx.type = q.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson'
    ctx.attachment(`usage-${q.from.slice(0, 10)}-${q.to.slice(0, 10)}.${q.format}`)
    // A byte stream (not object mode, which buffers 16 chunks): the next page is read only once the socket has
    // drained the last one, so a slow client holds one page in memory, not the export.
    ctx.body = Readable.from(ledgerExport(services.db, caller.accountId, window, q.format, q.columns ?? 'standard'), {
      objectMode: false,
      highWaterMark: 16 * 1024,
    })
  })
  return router
}
