// Code-side guarantees shared by the document capabilities: dates as YYYY-MM-DD or null, amounts as
// numbers, and sums checked (reported as warnings, never silently fixed).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

function iso(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d))
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null
  return date.toISOString().slice(0, 10)
}

/** A date the model wrote in any common form → `YYYY-MM-DD`, or null when it is not a real date. */
export function normalizeDate(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const s = value.trim()
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})/.exec(s)
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!)
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s) // US order, as most invoices we see
  if (m) return iso(+m[3]!, +m[1]!, +m[2]!)
  m = /^(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})$/.exec(s)
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!)
  m = /^([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})$/.exec(s)
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!)
  return null
}

/** "1,234.50", "$12", 12 → a number; anything else → null. */
export function toAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const cleaned = value.replace(/[^\d.\-]/g, '')
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null
  return Number(cleaned)
}

/** Sums in cents so that 0.1 + 0.2 checks as 0.3. */
export function sum(values: Array<number | null | undefined>): number {
  return values.reduce<number>((acc, v) => acc + Math.round((v ?? 0) * 100), 0) / 100
}

/** A warning when `parts` do not add up to `total` (within one cent); null when they do or cannot be checked. */
export function sumWarning(what: string, parts: Array<number | null | undefined>, total: number | null | undefined): string | null {
  if (total == null || parts.length === 0 || parts.some((p) => p == null)) return null
  const actual = sum(parts)
  return Math.abs(actual - total) > 0.01 ? `${what}: the parts add up to ${actual}, the document states ${total}.` : null
}
