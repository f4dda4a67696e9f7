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

const isGraded = (v: unknown): v is { grounded: boolean; confidence: number; evidence: Graded['evidence'] } =>
  !!v && typeof v === 'object' && typeof (v as Graded).grounded === 'boolean' && typeof (v as Graded).confidence === 'number'

const pointer = (parts: ReadonlyArray<string | number>) =>
  parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')

/** Every value of a result that carries evidence, in the order of the result. */
export function gradedValues(result: object): Graded[] {
  const out: Graded[] = []
  const grade = (path: string, g: { grounded: boolean; confidence: number; evidence: Graded['evidence'] }) =>
    out.push({ path, grounded: g.grounded, confidence: g.confidence, evidence: g.evidence ?? null })
  const walk = (value: unknown, at: Array<string | number>) => {
    if (Array.isArray(value)) return value.forEach((v, i) => walk(v, [...at, i]))
    if (!value || typeof value !== 'object') return
    if (at.length > 0 && isGraded(value)) grade(pointer(at), value)
    for (const [k, v] of Object.entries(value)) {
      if (at.length === 0 && k === 'grounding') {
        for (const [field, g] of Object.entries(v as object)) if (isGraded(g)) grade(pointer(field.split('.')), g)
      } else if (v && typeof v === 'object') walk(v, [...at, k])
    }
  }
  walk(result, [])
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
