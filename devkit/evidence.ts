// Model answers with evidence, for capability tests: a well-behaved model quotes the line of the document that
// states each value (found here by the kernel's own reading of printed values, core/evidence/derive.ts).
import { derivable } from '../core/evidence/derive.ts'
import { oneLine } from '../core/models/answers.ts'

export interface Quoting {
  quote: string | null
  page: number | null
  confidence: number
}

/** The first line of `pages` stating every one of `values` (nulls skipped), as the model's support. */
export function lineQuoting(pages: readonly string[], values: readonly unknown[], confidence = 0.9): Quoting {
  const stated = values.filter((v) => v !== null && v !== undefined)
  for (const [i, page] of pages.entries())
    for (const line of page.split('\n'))
      if (line.trim() && stated.every((v) => derivable(v, line))) return { quote: line, page: i + 1, confidence }
  return { quote: null, page: null, confidence }
}

/** Items with the support a well-behaved model gives, from `keys` of each item; what an item states wins. */
export function quoted<T extends Record<string, unknown>>(pages: readonly string[], items: readonly T[], keys: readonly string[]): T[] {
  return items.map((item) => ({
    ...lineQuoting(
      pages,
      keys.map((k) => item[k]),
    ),
    ...item,
  }))
}

/** The supports of single-valued fields, one per field with a value. */
export function supports(pages: readonly string[], values: Record<string, unknown>, confidence = 0.9) {
  return Object.entries(values)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([field, v]) => ({ field, ...lineQuoting(pages, [v], confidence) }))
}

/** What the API publishes for a value the line of `pages` states: evidence found by code, grounded. */
export function groundedOn(pages: readonly string[], values: readonly unknown[], confidence = 0.9) {
  const q = lineQuoting(pages, values, confidence)
  if (q.quote === null) throw new Error(`no line states ${JSON.stringify(values)}`)
  return { evidence: { page: q.page, quote: oneLine(q.quote) }, grounded: true, confidence }
}

/** What the API publishes for a value without evidence: the model's figure capped at 0.5. */
export const ungrounded = (confidence: number) => ({ evidence: null, grounded: false, confidence: Math.min(confidence, 0.5) })

/**
 * A model answer with the support a well-behaved model gives: `items` names each array of the answer and the
 * keys of an item that its quote must state, `fields` the single-valued fields ("vendor.name") of `support`.
 */
export function supported(
  answer: Record<string, any>,
  pages: readonly string[],
  items: Record<string, readonly string[]>,
  fields: readonly string[] = [],
): Record<string, any> {
  const out: Record<string, any> = { ...answer }
  for (const [key, keys] of Object.entries(items)) if (Array.isArray(out[key])) out[key] = quoted(pages, out[key], keys)
  const at = (path: string) => path.split('.').reduce<any>((o, k) => (o && typeof o === 'object' ? o[k] : undefined), answer)
  if (fields.length && !('support' in answer)) out.support = supports(pages, Object.fromEntries(fields.map((f) => [f, at(f)])))
  return out
}

const EVIDENCE_KEYS = new Set(['evidence', 'grounded', 'confidence', 'grounding'])

/** A result without what evidence adds (for comparing the values alone). */
export function withoutEvidence(body: unknown): any {
  if (Array.isArray(body)) return body.map(withoutEvidence)
  if (!body || typeof body !== 'object') return body
  return Object.fromEntries(Object.entries(body).flatMap(([k, v]) => (EVIDENCE_KEYS.has(k) ? [] : [[k, withoutEvidence(v)]])))
}

/** Every grounded value of a result, by path: `grounded`, the evidence's page and the confidence. */
export function groundings(body: unknown, path = ''): Array<{ path: string; grounded: boolean; page: number | null; confidence: number }> {
  if (Array.isArray(body)) return body.flatMap((v, i) => groundings(v, `${path}[${i}]`))
  if (!body || typeof body !== 'object') return []
  const o = body as Record<string, any>
  const own =
    typeof o.grounded === 'boolean' ? [{ path, grounded: o.grounded, page: o.evidence?.page ?? null, confidence: o.confidence }] : []
  return [...own, ...Object.entries(o).flatMap(([k, v]) => (k === 'evidence' ? [] : groundings(v, path ? `${path}.${k}` : k)))]
}
