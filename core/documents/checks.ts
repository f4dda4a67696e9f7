// Code-side guarantees shared by the document capabilities: dates as YYYY-MM-DD or null, amounts as
// numbers, ISO 4217 currencies, and sums checked (reported as warnings, never silently fixed).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

function iso(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d))
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null
  return date.toISOString().slice(0, 10)
}

/** The unambiguous forms: ISO, US slashes, "4 Mar 2024", "Mar 4, 2024". */
function isoDate(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const s = value.trim()
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+Z?)?$/.exec(s)
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!)
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s) // US order, as most invoices we see
  if (m) return iso(+m[3]!, +m[1]!, +m[2]!)
  m = /^(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})$/.exec(s)
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!)
  m = /^([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})$/.exec(s)
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!)
  return null
}

/** Plain digits with a decimal point → a number. */
function plainNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const cleaned = value.replace(/[^\d.-]/g, '')
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null
  return Number(cleaned)
}

/**
 * An amount as printed → a number: "1,234.50", "$12", "USD 99", "1.234,50 €", "(45.00)" (negative),
 * "12.00-" (negative). Null for anything that is not exactly one number (e.g. "2 x 12.50", "8%").
 */
export function toAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  let s = value.trim()
  if (s === '' || s.includes('%')) return null
  let negative = false
  const paren = /^\((.*)\)$/.exec(s)
  if (paren) {
    negative = true
    s = paren[1]!.trim()
  }
  const trailingMinus = /^(.*\d[^-]*)-$/.exec(s)
  if (trailingMinus && !s.startsWith('-')) {
    negative = true
    s = trailingMinus[1]!.trim()
  }
  // One number, optionally with a currency code or symbol around it: "see page 2" or "2 x 12.50" is no amount.
  const shape = /^([-\u2212]?)\s*([^\d\s\-\u2212]{0,4}?)\.?\s*([-\u2212]?)\s*(\d[\d.,'\u00a0\u202f ]*)\s*([^\d\s]{0,4})$/.exec(s)
  if (!shape || !isCurrencyMark(shape[2]!) || !isCurrencyMark(shape[5]!)) return null
  if (shape[1] || shape[3]) negative = true
  let digits = shape[4]!.replace(/['\u00a0\u202f ]/g, '')
  // Decimal comma: "1.234,50", "1234,5". A comma followed by exactly three digits stays a thousands separator.
  if (/^\d{1,3}(\.\d{3})+,\d{1,2}$/.test(digits) || /^\d+,\d{1,2}$/.test(digits)) digits = digits.replace(/\./g, '').replace(',', '.')
  else if (/^\d{1,3}(\.\d{3}){2,}$/.test(digits))
    digits = digits.replace(/\./g, '') // 1.234.567
  else digits = digits.replace(/,/g, '')
  const n = plainNumber(digits)
  return n === null ? null : negative ? -n : n
}

/** Any common date form → YYYY-MM-DD, or null when it is not a real date. */
export function normalizeDate(value: unknown): string | null {
  if (typeof value !== 'string') return null
  let s = value.trim()
  s = s.replace(/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+/i, '') // "Monday, March 4, 2024"
  s = s.replace(/(\d)(st|nd|rd|th)\b/gi, '$1') // "March 4th"
  s = s.replace(/^(\d{1,2})[-/.\s]+([A-Za-z]{3,})\.?[-/.\s]+(\d{4})$/, '$1 $2 $3') // "04-Mar-2024"
  // Dotted day.month.year is the European form; slashes with a first number above 12 cannot be US order.
  const dmy = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/.exec(s)
  if (dmy && (dmy[2] === '.' || Number(dmy[1]) > 12)) return isoDate(`${dmy[4]}-${dmy[3]}-${dmy[1]}`)
  return isoDate(s)
}

const ISO_4217 = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : [])
const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '₹': 'INR',
  '₩': 'KRW',
  '₪': 'ILS',
  '₺': 'TRY',
  '₽': 'RUB',
  '₱': 'PHP',
  '₫': 'VND',
  '₴': 'UAH',
  '₦': 'NGN',
  '฿': 'THB',
  US$: 'USD',
  C$: 'CAD',
  CA$: 'CAD',
  A$: 'AUD',
  AU$: 'AUD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  R$: 'BRL',
  ZŁ: 'PLN',
  KČ: 'CZK',
}

const MARKS = new Set(['$', '€', '£', '¥', '₹', '₩', '₪', '₺', '₽', '₱', '₫', '₴', '₦', '฿', 'kr', 'zł', 'kč', 'rs', 'fr', 'sfr'])

/** Empty, a currency symbol, "US$"-style, or an ISO 4217 code in any case. */
function isCurrencyMark(mark: string): boolean {
  const m = mark.toLowerCase().replace(/\.$/, '')
  return m === '' || MARKS.has(m) || /^[a-z]{1,3}\$$/.test(m) || (m.length === 3 && currencyOf(m) !== null)
}

/** An ISO 4217 code (3 upper-case letters of a real currency), or null ("$" alone is ambiguous: null). */
export function currencyOf(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const s = value.trim().toUpperCase()
  if (SYMBOLS[s]) return SYMBOLS[s]
  if (!/^[A-Z]{3}$/.test(s)) return null
  return ISO_4217.size === 0 || ISO_4217.has(s) ? s : null
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
