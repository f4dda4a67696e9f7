// The ledger's charges of a window as CSV or JSON lines, oldest first, read in pages of a keyset cursor
// on (created_at, id) and written as they come: an export of millions of rows never sits in memory.
import { csvCell } from '../csv.ts'
import type { Query } from '../db/database.ts'
import { CREDIT_USD } from '../wallet/credit.ts'

export type ExportFormat = 'csv' | 'jsonl'
export type ExportColumns = 'standard' | 'focus'

/** The columns of each set, in order (stable: a customer's loader depends on them). */
export const EXPORT_COLUMNS = {
  standard: ['createdAt', 'requestId', 'endpoint', 'keyId', 'credits', 'usd', 'livemode'],
  focus: ['ChargePeriodStart', 'ChargePeriodEnd', 'BilledCost', 'BillingCurrency', 'ServiceName', 'SkuId', 'ResourceId', 'ChargeType'],
} as const

const PAGE = 1000

/** A CSV line whose missing values are empty and unquoted, as COPY … (format csv) reads NULL. */
const csvRow = (cells: Array<string | number | boolean | null>) => cells.map((c) => (c === null ? '' : csvCell(String(c)))).join(',')

interface Row {
  id: string
  amount: string
  reference: string | null
  key_id: string | null
  created_at: string
  iso: string
}

/** Credits as US dollars, exactly (a credit is a cent): "-0.03", "12.50". */
function dollars(credits: number): string {
  const cents = Math.round(credits * CREDIT_USD * 100)
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

function record(r: Row, columns: ExportColumns): Record<string, string | number | boolean | null> {
  // A charge's reference is "<endpoint> <requestId>" (capture_hold).
  const [endpoint, requestId] = (r.reference ?? '').split(' ')
  const credits = -Number(r.amount) // what the account was billed
  const createdAt = r.iso
  if (columns === 'focus')
    return {
      ChargePeriodStart: createdAt,
      ChargePeriodEnd: createdAt,
      BilledCost: dollars(credits),
      BillingCurrency: 'USD',
      ServiceName: endpoint ?? null,
      SkuId: endpoint ?? null,
      ResourceId: requestId ?? null,
      ChargeType: 'Usage',
    }
  return {
    createdAt,
    requestId: requestId ?? null,
    endpoint: endpoint ?? null,
    keyId: r.key_id,
    credits,
    usd: dollars(credits),
    livemode: true,
  }
}

/** The export in chunks of whole lines (a header first for CSV), each line ending in a newline. */
export async function* ledgerExport(
  db: Query,
  accountId: string,
  window: { from: Date; to: Date },
  format: ExportFormat,
  columns: ExportColumns,
): AsyncGenerator<string> {
  const names = EXPORT_COLUMNS[columns]
  if (format === 'csv') yield csvRow([...names]) + '\r\n'
  let after: { at: string; id: string } = { at: window.from.toISOString(), id: '0' }
  for (;;) {
    const rows = await db.sql<Row>(
      `select id::text, amount::text, reference, key_id, created_at::text,
              to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as iso from ledger
        where account_id = ? and kind = 'charge' and (created_at, id) > (?::timestamptz, ?::bigint) and created_at < ?
        order by ledger.created_at, ledger.id limit ${PAGE}`,
      [accountId, after.at, after.id, window.to],
    )
    // The first page starts at `from` itself: (from, 0) is before every row of that instant. A page is one chunk
    // (one write to the socket, not a thousand), and the next page is read when the stream asks for more.
    let chunk = ''
    for (const r of rows) {
      const rec = record(r, columns)
      chunk += format === 'csv' ? csvRow(names.map((n) => rec[n as keyof typeof rec] ?? null)) + '\r\n' : JSON.stringify(rec) + '\n'
    }
    if (chunk) yield chunk
    if (rows.length < PAGE) return
    const last = rows.at(-1)!
    after = { at: last.created_at, id: last.id }
  }
}
