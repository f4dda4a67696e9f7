// Which values of an extracted result go to a person (C21). A result carries its values' evidence in two shapes
// (core/evidence/schema.ts): `grounding` by field name for single-valued fields ("vendor.name" → /vendor/name), and
// `evidence, grounded, confidence` spread into each item of a list (/lineItems/0). Both are read here, so every
// extracting capability follows the same rule without declaring anything.
import { CONTRADICTED_CAP } from '../evidence/ground.ts'
import type { JsonSchema } from '../run/result.ts'

export type ReviewMode = 'off' | 'ungrounded' | 'below'

export interface ReviewRule {
  mode: ReviewMode
  /** `below`: values with a confidence under it are flagged. */
  threshold: number | null
}

/** One value's evidence as published, where it sits in the result (a JSON pointer). */
export interface Graded {
  path: string
  grounded: boolean
  confidence: number
  evidence: { page: number | null; quote: string } | null
}

const pointer = (parts: ReadonlyArray<string | number>) =>
  parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/**
 * One value's evidence as the rule reads it. Anything but the shape code writes (a boolean `grounded`, a
 * `confidence` in 0..1, `evidence` null or a quote; grounded only with a quote) is unreadable: no evidence and
 * confidence 0, so every mode sends it to a person rather than trust it.
 */
function grade(path: string, g: unknown): Graded {
  const o = isObject(g) ? g : {}
  const e = o.evidence
  const evidence = isObject(e) && typeof e.quote === 'string' ? { page: typeof e.page === 'number' ? e.page : null, quote: e.quote } : null
  const c = o.confidence
  const readable =
    typeof o.grounded === 'boolean' &&
    typeof c === 'number' &&
    c >= 0 &&
    c <= 1 &&
    (e === null || e === undefined || evidence !== null) &&
    (!o.grounded || evidence !== null)
  return readable
    ? { path, grounded: o.grounded as boolean, confidence: c, evidence }
    : { path, grounded: false, confidence: 0, evidence: null }
}

/** A place in the result being walked: its value, and how it was reached (the pointer is made only when graded). */
interface Place {
  value: unknown
  parent: Place | null
  key: string | number
  /** The top-level `grounding`, whose entries are graded by field name. */
  groundings?: true
}

const pathOf = (p: Place): Array<string | number> => {
  const parts: Array<string | number> = []
  for (let at: Place | null = p; at?.parent; at = at.parent) parts.push(at.key)
  return parts.reverse()
}

/**
 * Every value of a result that carries evidence, in the order of the result: each entry of the top-level
 * `grounding`, and each object below the top that has `grounded`. Walked without recursion, so a result of any
 * depth is read.
 */
export function gradedValues(result: object): Graded[] {
  const out: Graded[] = []
  const stack: Place[] = [{ value: result, parent: null, key: '' }]
  while (stack.length) {
    const place = stack.pop()!
    const { value } = place
    if (place.groundings) {
      if (isObject(value)) for (const [field, g] of Object.entries(value)) out.push(grade(pointer(field.split('.')), g))
      continue
    }
    if (!value || typeof value !== 'object') continue
    const top = place.parent === null
    if (!top && !Array.isArray(value) && 'grounded' in value) out.push(grade(pointer(pathOf(place)), value))
    const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value)
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, v] = entries[i]!
      stack.push({ value: v, parent: place, key, ...(top && key === 'grounding' ? { groundings: true as const } : {}) })
    }
  }
  return out
}

/**
 * The values the rule sends to a person: with `ungrounded`, those without evidence or that code found wrong
 * (capped at CONTRADICTED_CAP, evidence or not); with `below`, those under the threshold.
 */
export function flagged(rule: ReviewRule, values: readonly Graded[]): Graded[] {
  if (rule.mode === 'ungrounded') return values.filter((v) => !v.grounded || v.confidence <= CONTRADICTED_CAP)
  if (rule.mode === 'below') return values.filter((v) => v.confidence < (rule.threshold ?? 0))
  return []
}

const cache = new WeakMap<JsonSchema, boolean>()

/** A schema with an object of evidence, grounded and confidence somewhere (core/evidence/schema.ts `Grounded`). */
function hasGrounded(s: unknown): boolean {
  if (!s || typeof s !== 'object') return false
  const properties = (s as JsonSchema).properties
  if (properties && ['evidence', 'grounded', 'confidence'].every((k) => k in properties)) return true
  return Object.values(s).some(hasGrounded)
}

/** An extracting capability: its published result has values with evidence (enrich's result-wide `grounded` is not). */
export function carriesEvidence(capability: { responseSchema: JsonSchema }): boolean {
  let known = cache.get(capability.responseSchema)
  if (known === undefined) cache.set(capability.responseSchema, (known = hasGrounded(capability.responseSchema)))
  return known
}
