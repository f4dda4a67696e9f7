// The operator's cost report (issue 28): per capability, per model and in total, what the calls earned
// (credits × the credit's USD value) against what their model requests cost at the provider. Operator-only:
// provider cost never reaches an account owner (no /v1 route, dashboard page or SDK type reads model_requests).
import { Type } from '@sinclair/typebox'
import { CREDIT_USD } from '../wallet/credit.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { inputReader } from '../validation.ts'

const Instant = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })])
export const CostsQuery = Type.Object({ from: Type.Optional(Instant), to: Type.Optional(Instant) }, { additionalProperties: false })
const readQuery = inputReader(CostsQuery, 'query')

export interface CostLine {
  /** Charged calls. */
  calls: number
  credits: number
  revenueUsd: number
  /** Σ tokens × the price table over every provider request, answered or not, of a charged call or a free one. */
  providerCostUsd: number
  marginUsd: number
  tokensIn: number
  tokensOut: number
  /** Provider requests (attempts included). */
  requests: number
  /** Answered requests whose model has no known price: providerCostUsd leaves them out (a lower bound then). */
  unpricedRequests: number
}

export interface CostReport {
  from: string
  to: string
  creditUsd: number
  total: CostLine
  capabilities: Array<CostLine & { capability: string }>
  /** Calls and credits of a model are those of the calls it answered (the last answered request of the call). */
  models: Array<CostLine & { provider: string; model: string }>
}

/** `from` inclusive, `to` exclusive; a date is its UTC midnight. Default: the current UTC month. */
export function costPeriod(query: Record<string, unknown>, now: Date): { from: Date; to: Date } {
  const { from: rawFrom, to: rawTo } = readQuery({ ...query })
  const from = rawFrom ? new Date(rawFrom) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const to = rawTo ? new Date(rawTo) : new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1))
  if (!(to > from)) throw new ApiError('invalid_request', '`to` must be after `from`.', [{ path: '/to', message: 'must be after from' }])
  return { from, to }
}

// Money summed as numeric in SQL and rounded there: the report and Σ(tokens × price) agree to the micro-dollar.
const REPORT = `
with calls as (
  select request_id, endpoint, credits from usage_events where created_at >= ?::timestamptz and created_at < ?::timestamptz
), spend as (
  select * from model_requests where created_at >= ?::timestamptz and created_at < ?::timestamptz
), served as (
  select distinct on (c.request_id) c.request_id, c.credits, m.provider, m.model
    from calls c join model_requests m on m.request_id = c.request_id and m.outcome = 'ok'
   order by c.request_id, m.id desc
), earned as (
  select 'capability' as kind, endpoint as name, null as provider, count(*) as calls, sum(credits) as credits from calls group by endpoint
  union all
  select 'model', model, provider, count(*), sum(credits) from served group by provider, model
), paid as (
  select 'capability' as kind, endpoint as name, null as provider, sum(cost_usd) as cost, sum(input_tokens) as tin,
         sum(output_tokens) as tout, count(*) as requests, count(*) filter (where outcome = 'ok' and cost_usd is null) as unpriced
    from spend group by endpoint
  union all
  select 'model', model, provider, sum(cost_usd), sum(input_tokens), sum(output_tokens), count(*),
         count(*) filter (where outcome = 'ok' and cost_usd is null)
    from spend group by provider, model
)
select coalesce(e.kind, p.kind) as kind, coalesce(e.name, p.name) as name, coalesce(e.provider, p.provider) as provider,
       coalesce(e.calls, 0) as calls, coalesce(e.credits, 0) as credits,
       round(coalesce(p.cost, 0), 6)::text as cost, coalesce(p.tin, 0) as tin, coalesce(p.tout, 0) as tout,
       coalesce(p.requests, 0) as requests, coalesce(p.unpriced, 0) as unpriced
  from earned e full join paid p on p.kind = e.kind and p.name = e.name and p.provider is not distinct from e.provider
 order by 1, 2, 3`

export async function costReport(db: Query, period: { from: Date; to: Date }): Promise<CostReport> {
  const range = [period.from, period.to]
  const rows = await db.sql(REPORT, [...range, ...range])
  const capabilities: CostReport['capabilities'] = []
  const models: CostReport['models'] = []
  const total = line(0, 0, '0', 0, 0, 0, 0)
  for (const r of rows) {
    const l = line(
      Number(r.calls),
      Number(r.credits),
      String(r.cost),
      Number(r.tin),
      Number(r.tout),
      Number(r.requests),
      Number(r.unpriced),
    )
    if (r.kind === 'model') {
      models.push({ provider: String(r.provider), model: String(r.name), ...l })
      continue
    }
    capabilities.push({ capability: String(r.name), ...l })
    for (const k of ['calls', 'credits', 'tokensIn', 'tokensOut', 'requests', 'unpricedRequests'] as const) total[k] += l[k]
    total.providerCostUsd = micro(total.providerCostUsd + l.providerCostUsd)
  }
  total.revenueUsd = cents(total.credits * CREDIT_USD)
  total.marginUsd = micro(total.revenueUsd - total.providerCostUsd)
  return { from: period.from.toISOString(), to: period.to.toISOString(), creditUsd: CREDIT_USD, total, capabilities, models }
}

const cents = (usd: number) => Math.round(usd * 100) / 100
const micro = (usd: number) => Math.round(usd * 1e6) / 1e6

function line(
  calls: number,
  credits: number,
  cost: string,
  tokensIn: number,
  tokensOut: number,
  requests: number,
  unpriced: number,
): CostLine {
  const revenueUsd = cents(credits * CREDIT_USD)
  const providerCostUsd = Number(cost)
  return {
    calls,
    credits,
    revenueUsd,
    providerCostUsd,
    marginUsd: micro(revenueUsd - providerCostUsd),
    tokensIn,
    tokensOut,
    requests,
    unpricedRequests: unpriced,
  }
}
