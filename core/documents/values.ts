// Reading model answers for the document capabilities: the model copies values as printed; code turns them
// into the promised forms (core/documents/checks.ts) and reports in `warnings` what it could not read,
// instead of guessing.
import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox'
import { currencyOf, normalizeDate, toAmount } from './checks.ts'

// ---- schema pieces for what the MODEL answers (not what the API returns) ----------------------------
// Compatible with strict structured outputs: every property required, absence as null, no string bounds.
// Amounts may come back as strings ("1,234.50"), dates in any form: code normalises both.
/** `t` or null (a value the model or the document may not have). */
export const Nullable = <T extends TSchema>(t: T, options?: SchemaOptions) => Type.Union([t, Type.Null()], options)
export const MText = Nullable(Type.String())
export const MAmount = Type.Union([Type.Number(), Type.String(), Type.Null()])

// ---- scalar readers ------------------------------------------------------------------------------------

const PLACEHOLDER = /^(null|none|n\/?a|unknown|not (stated|given|available|applicable)|-+|—|\?)$/i

/** A trimmed one-line string (line breaks become ", "), or null for empty values and placeholders like "N/A". */
export function textOf(value: unknown, max = 2000): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') return null
  const s = value
    .split(/\s*[\r\n]+\s*/)
    .filter(Boolean)
    .join(', ')
    .replace(/\s+/g, ' ')
    .trim()
  if (s === '' || PLACEHOLDER.test(s)) return null
  return s.length > max ? s.slice(0, max).trimEnd() : s
}

/** 24-hour HH:MM from "12:47", "12:47:05", "12.47", "1:05 PM", "13h05"; null otherwise. */
export function timeOf(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const m = /^(\d{1,2})\s*[:.h]\s*(\d{2})(?::\d{2}(?:\.\d+)?)?\s*([ap])?\.?\s*(m\.?)?$/i.exec(value.trim())
  if (!m) return null
  let h = Number(m[1])
  const min = Number(m[2])
  const ampm = m[3]?.toLowerCase()
  if (ampm) {
    if (h < 1 || h > 12) return null
    h = (h % 12) + (ampm === 'p' ? 12 : 0)
  }
  if (h > 23 || min > 59) return null
  return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`
}

// ---- readers that report what they could not read -------------------------------------------------------

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v) : String(v))

/** Reads fields of one model answer, collecting a warning for every value present but unreadable. */
export class Reader {
  readonly warnings: string[] = []

  warn(message: string | null | undefined): void {
    if (message && !this.warnings.includes(message)) this.warnings.push(message)
  }

  text(value: unknown, max?: number): string | undefined {
    return textOf(value, max) ?? undefined
  }

  amount(value: unknown, path: string): number | undefined {
    const n = toAmount(value)
    if (n !== null) return n
    if (textOf(value) !== null) this.warn(`${path}: ${shown(value)} is not an amount; omitted.`)
    return undefined
  }

  date(value: unknown, path: string): string | undefined {
    const d = normalizeDate(value)
    if (d !== null) return d
    if (textOf(value) !== null) this.warn(`${path}: ${shown(value)} is not a valid date; omitted.`)
    return undefined
  }

  currency(value: unknown, path = 'currency'): string | undefined {
    const c = currencyOf(value)
    if (c !== null) return c
    if (textOf(value) !== null) this.warn(`${path}: ${shown(value)} is not an ISO 4217 currency code; omitted.`)
    return undefined
  }

  time(value: unknown, path = 'time'): string | undefined {
    const t = timeOf(value)
    if (t !== null) return t
    if (textOf(value) !== null) this.warn(`${path}: ${shown(value)} is not a time of day; omitted.`)
    return undefined
  }
}

/** The object without its undefined properties (absent fields are omitted, never null). */
export function compact<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k]
  return o
}

/** a × b rounded to cents. */
export const times = (a: number, b: number) => Math.round(a * b * 100) / 100

/** A round amount for messages: 2347.4 → "2347.40". */
export const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2)

/** Every digit but the last `keep` replaced by "*": "1234-5678-9012-6621" → "****-****-****-6621". */
export function maskDigits(s: string, keep = 4): string {
  let seen = (s.match(/\d/g) ?? []).length
  return s.replace(/\d/g, (d) => (seen-- > keep ? '*' : d))
}

/** Card-number-like runs (8+ digits, spaces or dashes between) masked to their last 4 digits. */
export function maskCardNumbers(s: string): string {
  return s.replace(/\d[\d -]{6,}\d/g, (run) => ((run.match(/\d/g) ?? []).length >= 8 ? maskDigits(run) : run))
}
