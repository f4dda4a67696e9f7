// Reading the usage rollups (migration 0028 keeps them as the logs are written): calls, errors, credits and latency
// percentiles of an account's calls per UTC day, endpoint, key or Service-Metadata tag, over whole hours, without
// touching the request log.
import type { Query } from '../db/database.ts'

export type SummaryGroupBy = 'day' | 'endpoint' | 'key' | `metadata.${string}`

export interface SummaryGroup {
  key: string
  calls: number
  credits: number
  errors: number
  /** The upper bound of the latency bucket holding the median (null: no calls). */
  p50Ms: number | null
  p95Ms: number | null
}

export interface UsageSummary {
  groups: SummaryGroup[]
  total: { calls: number; credits: number; errors: number }
}

let bounds: number[] | undefined

/** The histogram's bucket bounds in ms, as the database numbers them (read once). */
async function latencyBounds(db: Query): Promise<number[]> {
  if (!bounds) bounds = (await db.sql<{ b: number[] }>(`select latency_bounds() as b`))[0]!.b.map(Number)
  return bounds
}

/**
 * The latency under which a share `p` of the calls fell, as the upper bound of its bucket (the last bucket, open
 * above, gives its lower bound); null when the histogram is empty.
 */
export function percentileOf(histogram: number[], p: number, bounds: number[]): number | null {
  const total = histogram.reduce((a, b) => a + b, 0)
  if (total === 0) return null
  const rank = Math.ceil(p * total)
  let seen = 0
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!
    if (seen >= rank) return bounds[Math.min(i, bounds.length - 1)]!
  }
  return bounds.at(-1)!
}

interface GroupRow {
  key: string
  calls: string
  credits: string
  errors: string
  latency: string[] | null
}

export async function usageSummary(
  db: Query,
  accountId: string,
  livemode: boolean,
  window: { from: Date; to: Date },
  groupBy: SummaryGroupBy,
): Promise<UsageSummary> {
  const params: unknown[] = [accountId, livemode, window.from, window.to]
  let source: string
  if (groupBy.startsWith('metadata.')) {
    params.push(groupBy.slice('metadata.'.length))
    source = `select value as key, calls, credits, errors, latency from usage_tag_rollups
             where account_id = ? and livemode = ? and hour >= ? and hour < ? and tag = ?`
  } else {
    const key = { day: `to_char(hour at time zone 'UTC', 'YYYY-MM-DD')`, endpoint: 'endpoint', key: 'key_id::text' }[groupBy as 'day']
    source = `select ${key} as key, calls, credits, errors, latency from usage_rollups
             where account_id = ? and livemode = ? and hour >= ? and hour < ?`
  }
  // The histograms are summed bucket by bucket in one pass: one sum per element (a fixed count), no unnest.
  const b = await latencyBounds(db)
  const buckets = Array.from({ length: b.length + 1 }, (_, i) => `coalesce(sum(latency[${i + 1}]), 0)`).join(', ')
  const sql = `select key, sum(calls) calls, sum(credits) credits, sum(errors) errors, array[${buckets}] latency
                 from (${source}) r group by key order by key`
  const rows = await db.sql<GroupRow>(sql, params)
  // The bound a bucket ends at: bucket i (width_bucket's numbering, element i of the histogram) ends at bounds[i].
  const groups = rows.map((r) => {
    const histogram = (r.latency ?? []).map(Number)
    return {
      key: r.key,
      calls: Number(r.calls),
      credits: Number(r.credits),
      errors: Number(r.errors),
      p50Ms: percentileOf(histogram, 0.5, b),
      p95Ms: percentileOf(histogram, 0.95, b),
    }
  })
  const total = { calls: 0, credits: 0, errors: 0 }
  for (const g of groups) {
    total.calls += g.calls
    total.credits += g.credits
    total.errors += g.errors
  }
  return { groups, total }
}

export interface DailyEndpointTotal {
  date: string
  /** the capability, as its route /v1/<name> is named in the usage events */
  endpoint: string
  calls: number
  credits: number
}

/** Per UTC day and capability: the calls logged and the credits charged, live only (the dashboard's overview). */
export async function dailyCapabilityTotals(db: Query, accountId: string, window: { from: Date; to: Date }): Promise<DailyEndpointTotal[]> {
  const rows = await db.sql<{ day: string; endpoint: string; calls: string; credits: string }>(
    `select to_char(hour at time zone 'UTC', 'YYYY-MM-DD') as day, substr(endpoint, 5) as endpoint, sum(calls) as calls, sum(credits) as credits
       from usage_rollups where account_id = ? and livemode and hour >= ? and hour < ? and endpoint ~ '^/v1/[a-z0-9-]+$'
      group by 1, 2 having sum(credits) > 0 order by 1, 2`,
    [accountId, window.from, window.to],
  )
  return rows.map((r) => ({ date: r.day, endpoint: r.endpoint, calls: Number(r.calls), credits: Number(r.credits) }))
}
