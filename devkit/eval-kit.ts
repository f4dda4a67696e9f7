// What a capability folder's eval.ts builds its cases with (scripts/eval.ts loads every capabilities/<name>/eval.ts).
// Evals and tests share this with the fixture files (fixture-files.ts): a capability folder reaches test/ only.
//
//   export const evalCases: EvalCase[] = [{ name, request, expected?, checks? }, …]   (at least 3)
//   a known document of devkit/fixtures/documents.ts, sent as text and as its PDF: ...inBothForms(doc, { expected })
//   export const align = { changes: 'section' }            optional: how arrays of objects are matched
//   export const compare = { 'changes[].before': 'contains' } optional: per-field scalar comparison
//
// `expected` is scored field by field (exact, or normalised: case/punctuation, numbers from strings, dates in
// any form); `checks` are rules code can decide (no PII left, labels in the taxonomy, citations resolve, a value
// in a range), each scored as one field named by its key.
import type { KnownDocument } from './fixtures/documents.ts'
import { pdfFile } from './fixture-files.ts'

export { pdfFile as pdf, solidPng } from './fixture-files.ts'

// A check reads a response as the published document shapes it (every response is validated against it).
export type Check = (result: any, request: any) => boolean

export interface EvalCase {
  /** shown in the report */
  name: string
  /** the request body, sent as it is */
  request: Record<string, unknown>
  /**
   * The known data, in the response's shape. Only the fields given are scored; null means "the document does
   * not state it" (absent or null is right). Arrays of objects are matched by index unless `align` says otherwise.
   */
  expected?: Record<string, unknown>
  /** rules scored by code, each one field in the report */
  checks?: Record<string, Check>
}

/** Every value at a path like "changes[].before" (arrays flattened). */
export function at(value: unknown, path: string): unknown[] {
  let found: unknown[] = [value]
  for (const part of path.split('.').filter(Boolean)) {
    const many = part.endsWith('[]')
    const key = many ? part.slice(0, -2) : part
    found = found.flatMap((v) => {
      const next = key === '' ? v : v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined
      return many ? (Array.isArray(next) ? (next as unknown[]) : []) : next === undefined ? [] : [next]
    })
  }
  return found
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? ''))

/** One case per input form of a known document: its text, and its PDF as an inline file. */
export function inBothForms(document: KnownDocument, scoring: Pick<EvalCase, 'expected' | 'checks'>): EvalCase[] {
  return [
    { name: document.file, request: { text: document.toText() }, ...scoring },
    { name: document.file, request: { file: pdfFile(document.file) }, ...scoring },
  ]
}

/** The (stringified) value at `path` contains every one of `needles` (case-insensitive). */
export const contains =
  (path: string, ...needles: string[]): Check =>
  (r) =>
    at(r, path).some((v) => needles.every((n) => text(v).toLowerCase().includes(n.toLowerCase())))
/** No value at `path` contains any of `needles` (case-insensitive): e.g. no PII left, no placeholder left. */
export const lacks =
  (path: string, ...needles: Array<string | RegExp>): Check =>
  (r) =>
    at(r, path).every((v) =>
      needles.every((n) => (typeof n === 'string' ? !text(v).toLowerCase().includes(n.toLowerCase()) : !n.test(text(v)))),
    )
/** Every value at `path` is one of `allowed` (e.g. labels in the taxonomy); at least one value exists. */
export const within =
  (path: string, allowed: readonly unknown[]): Check =>
  (r) => {
    const vs = at(r, path)
    return vs.length > 0 && vs.every((v) => allowed.includes(v))
  }
/** Every number at `path` lies in [lo, hi]; at least one exists. */
export const between =
  (path: string, lo: number, hi: number): Check =>
  (r) => {
    const vs = at(r, path)
    return vs.length > 0 && vs.every((v) => typeof v === 'number' && v >= lo && v <= hi)
  }
/** The number of values at `path` (an array's items with "x[]") is within [lo, hi]. */
export const count =
  (path: string, lo: number, hi = lo): Check =>
  (r) => {
    const n = at(r, path).length
    return n >= lo && n <= hi
  }
/** Every index at `indexPath` points into the array at `listPath` (citations resolve). */
export const resolves =
  (indexPath: string, listPath: string): Check =>
  (r) => {
    const size = at(r, `${listPath}[]`).length
    return at(r, indexPath).every((i) => Number.isInteger(i) && (i as number) >= 0 && (i as number) < size)
  }

/**
 * Issue 29: a known document and a right model answer for it, every value quoted from the line that states it.
 * test/evidence-eval.test.ts runs it through the capability as given, with invented values and quotes, and with
 * every page claim wrong, and reports how often `grounded` is right (precision and recall).
 */
export interface GroundingCase {
  request: Record<string, unknown>
  answer: Record<string, any>
}
