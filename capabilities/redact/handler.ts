import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { detect, type Span } from './detectors.ts'
import { DEFAULT_PLACEHOLDER, ENTITY_TYPES, EntityTypeSchema, type EntityType, type RedactResult } from './schema.ts'

interface Input {
  text: string
  types?: EntityType[]
  placeholder?: string
}

type Result = Static<typeof RedactResult>

/** The model only names entities; code finds them in the text and writes `redacted` itself. */
const ModelAnswer = Type.Object(
  { entities: Type.Array(Type.Object({ type: EntityTypeSchema, text: Type.String() }, { additionalProperties: false })) },
  { additionalProperties: false },
)
type Answer = Static<typeof ModelAnswer>

const MEANING: Record<EntityType, string> = {
  name: "people's names",
  email: 'email addresses',
  phone: 'phone and fax numbers',
  ssn: 'US social security numbers',
  card: 'payment card numbers',
  address: 'postal or street addresses',
  dob: 'dates of birth',
  medical: 'health information: diagnoses, conditions, medications, treatments, medical record numbers',
  account: 'bank account, IBAN, routing, member, policy and customer account numbers',
}

interface Candidate extends Span {
  fromDetector: boolean
}

/**
 * The model proposes entities; code guarantees (capabilities.md):
 * - deterministic detectors for emails, phones, SSNs and Luhn-valid cards run beside the model;
 * - a model entity counts only where its text occurs in the input (every occurrence, case-insensitively, on word
 *   boundaries); entities of types the caller did not ask for are dropped;
 * - `redacted` is written by code from the original text: the union of all spans is replaced, so no detected
 *   entity survives; overlapping spans become one placeholder;
 * - `entities` lists exactly the replaced spans, in order, and `entityCount` is its length.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Result> {
  const types = new Set<EntityType>(input.types ?? ENTITY_TYPES)
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You find personal and sensitive data in the text the user sends, for redaction.',
      'Entity types to find:',
      ...[...types].map((type) => `- ${type}: ${MEANING[type]}`),
      'Answer {"entities": [{"type", "text"}]}: one entry per distinct entity, "text" copied exactly as it appears in the text (same spelling, no added words). Leave out anything of other types.',
    ].join('\n'),
    content: input.text,
    schema: ModelAnswer,
  })
  const candidates: Candidate[] = detect(input.text, types).map((s) => ({ ...s, fromDetector: true }))
  for (const span of locate(input.text, answer.entities.filter((e) => types.has(e.type)))) candidates.push({ ...span, fromDetector: false })
  return redact(input.text, candidates, input.placeholder ?? DEFAULT_PLACEHOLDER)
}

/** Distinct model entities searched for; each is one scan of the text (≤ 500,000 characters). */
const MAX_MODEL_ENTITIES = 2000

/** Every occurrence of each model entity's text; entities that do not occur in the input are dropped. */
function locate(text: string, entities: Answer['entities']): Span[] {
  const spans: Span[] = []
  const seen = new Set<string>()
  for (const e of entities) {
    if (seen.size === MAX_MODEL_ENTITIES) break
    const needle = e.text.trim()
    if (needle.replace(/\s/g, '').length < 2) continue // a lone character would redact every occurrence of it
    const key = `${e.type}\u0000${needle.toLowerCase()}`
    if (seen.has(key)) continue
    seen.add(key)
    for (const m of text.matchAll(pattern(needle))) spans.push({ type: e.type, start: m.index, end: m.index + m[0].length })
  }
  return spans
}

const WORD = /[\p{L}\p{N}_]/u

/** The entity as a literal pattern: any run of whitespace matches any other, word edges must be word boundaries. */
function pattern(needle: string): RegExp {
  const body = needle
    .split(/\s+/)
    .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
    .join('\\s+')
  const before = WORD.test(needle[0]!) ? '(?<![\\p{L}\\p{N}_])' : ''
  const after = WORD.test(needle.at(-1)!) ? '(?![\\p{L}\\p{N}_])' : ''
  return new RegExp(before + body + after, 'giu')
}

/** Overlapping spans merge into one replaced region, typed by its longest span (a detector wins a tie). */
export function redact(text: string, candidates: Candidate[], placeholder: string): Result {
  const sorted = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end)
  const regions: Array<{ start: number; end: number; lead: Candidate }> = []
  for (const c of sorted) {
    const last = regions.at(-1)
    if (last && c.start < last.end) {
      last.end = Math.max(last.end, c.end)
      if (better(c, last.lead)) last.lead = c
    } else regions.push({ start: c.start, end: c.end, lead: c })
  }
  const entities: Result['entities'] = []
  let redacted = ''
  let at = 0
  for (const r of regions) {
    const type = r.lead.type as EntityType
    entities.push({ type, text: text.slice(r.start, r.end), start: r.start, end: r.end })
    redacted += text.slice(at, r.start) + placeholder.replace(/\{(type|TYPE)\}/g, (_, token: string) => (token === 'TYPE' ? type.toUpperCase() : type))
    at = r.end
  }
  redacted += text.slice(at)
  return { redacted, entities, entityCount: entities.length }
}

function better(a: Candidate, b: Candidate): boolean {
  const la = a.end - a.start
  const lb = b.end - b.start
  return la > lb || (la === lb && a.fromDetector && !b.fromDetector)
}
