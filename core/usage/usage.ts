// The account's ledger as the usage API and the dashboard show it: entries newest first with a cursor,
// filters, and daily totals per endpoint from the usage events. Every query filters by account_id.
import { csvLine } from '../csv.ts'
import type { Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { Size } from '../wallet/wallet.ts'

export interface UsageFilter {
  endpoint?: string
  keyId?: string
  from?: Date
  to?: Date
}

export interface LedgerEntry {
  id: string
  kind: 'purchase' | 'plan_grant' | 'charge' | 'adjustment'
  amount: number
  balanceAfter: number
  createdAt: string
  endpoint?: string
  requestId?: string
  keyId?: string
  reference?: string
  /** a size-priced charge's measure (issue 27) */
  size?: Static<typeof Size>
}

export interface DailyTotal {
  date: string
  endpoint: string
  calls: number
  credits: number
  /** Of those calls, the ones answered from the result cache (C20); absent when none. */
  cachedCalls?: number
}

const encodeCursor = (id: string) => Buffer.from(`l:${id}`).toString('base64url')

function decodeCursor(cursor: string): string {
  const m = /^l:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return m[1]!
}

function where(accountId: string, f: UsageFilter, alias = ''): { sql: string; params: unknown[] } {
  const a = alias ? `${alias}.` : ''
  const conditions: Array<[string, unknown]> = [[`${a}account_id = ?`, accountId]]
  if (f.keyId) conditions.push([`${a}key_id::text = ?`, f.keyId])
  if (f.from) conditions.push([`${a}created_at >= ?`, f.from])
  if (f.to) conditions.push([`${a}created_at < ?`, f.to])
  return { sql: conditions.map(([c]) => c).join(' and '), params: conditions.map(([, p]) => p) }
}

/** A ledger row as pg returns it (bigints and timestamps as text). */
interface LedgerRow {
  id: string
  kind: LedgerEntry['kind']
  amount: string
  balance_after: string
  reference: string | null
  key_id: string | null
  created_at: string
  size: Static<typeof Size> | null
}

export async function listLedger(
  db: Query,
  accountId: string,
  f: UsageFilter,
  page: { cursor?: string; limit: number },
): Promise<{ entries: LedgerEntry[]; nextCursor?: string }> {
  const w = where(accountId, f)
  let sql = `select id, kind, amount, balance_after, reference, key_id, created_at, size from ledger where ${w.sql}`
  // A charge's reference is "<endpoint> <requestId>" (capture_hold).
  if (f.endpoint) {
    sql += ` and kind = 'charge' and split_part(reference, ' ', 1) = ?`
    w.params.push(f.endpoint)
  }
  if (page.cursor) {
    sql += ` and id < ?`
    w.params.push(decodeCursor(page.cursor))
  }
  const rows = await db.sql<LedgerRow>(sql + ` order by id desc limit ?`, [...w.params, page.limit + 1])
  const entries = rows.slice(0, page.limit).map((r): LedgerEntry => {
    const e: LedgerEntry = {
      id: String(r.id),
      kind: r.kind,
      amount: Number(r.amount),
      balanceAfter: Number(r.balance_after),
      createdAt: new Date(r.created_at).toISOString(),
    }
    if (r.kind === 'charge' && r.reference) {
      const [endpoint, requestId] = String(r.reference).split(' ')
      if (endpoint) e.endpoint = endpoint
      if (requestId) e.requestId = requestId
    } else if (r.reference) e.reference = r.reference
    if (r.key_id) e.keyId = r.key_id
    if (r.size) e.size = r.size
    return e
  })
  return rows.length > page.limit ? { entries, nextCursor: encodeCursor(entries.at(-1)!.id) } : { entries }
}

export async function dailyTotals(db: Query, accountId: string, f: UsageFilter): Promise<DailyTotal[]> {
  const w = where(accountId, f)
  let sql = `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, endpoint, count(*) as calls, sum(credits) as credits,
                    count(*) filter (where cached) as cached
               from usage_events where ${w.sql}`
  if (f.endpoint) {
    sql += ` and endpoint = ?`
    w.params.push(f.endpoint)
  }
  const rows = await db.sql<{ day: string; endpoint: string; calls: string; credits: string; cached: string }>(
    sql + ` group by 1, 2 order by 1, 2`,
    w.params,
  )
  return rows.map((r) => ({
    date: r.day,
    endpoint: r.endpoint,
    calls: Number(r.calls),
    credits: Number(r.credits),
    ...(Number(r.cached) ? { cachedCalls: Number(r.cached) } : {}),
  }))
}

/** The ledger as CSV (the dashboard's export): every entry matching the filter, oldest first. */
export async function ledgerCsv(db: Query, accountId: string, f: UsageFilter): Promise<string> {
  const lines = ['id,created_at,kind,amount,balance_after,endpoint,request_id,key_id,reference']
  let cursor: string | undefined
  const all: LedgerEntry[] = []
  do {
    const page = await listLedger(db, accountId, f, { limit: 1000, ...(cursor ? { cursor } : {}) })
    all.push(...page.entries)
    cursor = page.nextCursor
  } while (cursor)
  for (const e of all.reverse())
    lines.push(csvLine([e.id, e.createdAt, e.kind, e.amount, e.balanceAfter, e.endpoint, e.requestId, e.keyId, e.reference]))
  return lines.join('\r\n') + '\r\n'
}
