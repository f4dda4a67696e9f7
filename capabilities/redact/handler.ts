import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { detect, type Span } from './detectors.ts'
import { ENTITY_TYPES, type EntityType, EntityTypeSchema, DEFAULT_PLACEHOLDER, type Input, type Output } from './schema.ts'

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
 * - a model entity counts only where its text occurs in the input (every occurrence, case-insensitively); entities
 *   of types the caller did not ask for are dropped;
 * - `redacted` is written by code from the original text: the union of all spans is replaced, so no detected
 *   entity survives; overlapping spans become one placeholder;
 * - redaction reaches a fixed point: the output is searched again and what it still shows is redacted too;
 * - `entities` lists exactly the replaced spans, in order, and `entityCount` is its length.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
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
  return redactText(input.text, types, answer.entities, input.placeholder ?? DEFAULT_PLACEHOLDER)
}

/**
 * Redacts `text` until nothing is found in the output: the detectors and the model's entity texts are run on
 * `redacted`, every hit is mapped back to the original text and added, and the text is redacted again. Joining
 * text around a placeholder can make a new entity (an email whose next character was a card's first digit, two
 * halves of a number around an empty placeholder); the next round catches it. Each round adds at least one
 * original character to the redacted set, so it ends. A hit made only of placeholder text (a caller's
 * placeholder that looks like an email) is the caller's own text and is left alone.
 */
export function redactText(text: string, types: ReadonlySet<string>, modelEntities: Answer['entities'], placeholder: string): Output {
  const needles = compile(modelEntities.filter((e) => types.has(e.type)))
  const find = (s: string): Candidate[] => [
    ...detect(s, types).map((span) => ({ ...span, fromDetector: true })),
    ...locate(s, needles).map((span) => ({ ...span, fromDetector: false })),
  ]
  const candidates = find(text)
  for (;;) {
    const { result, toOriginal } = redact(text, candidates, placeholder)
    const fresh = find(result.redacted).flatMap((c) => {
      const span = toOriginal(c.start, c.end)
      return span ? [{ ...c, ...span }] : []
    })
    if (fresh.length === 0) return result
    candidates.push(...fresh)
  }
}

/** Distinct model entities searched for; each is one scan of the text (≤ 500,000 characters). */
const MAX_MODEL_ENTITIES = 2000

/** A model entity's text as a literal pattern (any run of whitespace matches any other), and the kind of its edges. */
interface Needle {
  type: string
  re: RegExp
  first: RegExp | null
  last: RegExp | null
}

/** One pattern per distinct model entity text; a lone character would redact every occurrence of it. */
function compile(entities: Answer['entities']): Needle[] {
  const needles: Needle[] = []
  const seen = new Set<string>()
  for (const e of entities) {
    if (seen.size === MAX_MODEL_ENTITIES) break
    const needle = e.text.trim()
    if (needle.replace(/\s/g, '').length < 2) continue
    const key = `${e.type}\u0000${needle.toLowerCase()}`
    if (seen.has(key)) continue
    seen.add(key)
    const body = needle
      .split(/\s+/)
      .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
      .join('\\s+')
    needles.push({ type: e.type, re: new RegExp(body, 'giu'), first: kind(needle[0]!), last: kind(needle.at(-1)!) })
  }
  return needles
}

const LETTER = /\p{L}/u
const DIGIT = /\p{N}/u
const kind = (ch: string) => (LETTER.test(ch) ? LETTER : DIGIT.test(ch) ? DIGIT : null)

/**
 * Every occurrence of each model entity's text; entities that do not occur are dropped. An occurrence only
 * refuses to continue a run of the same kind ("Ann" is not found in "Annual", "4111" not inside "41115"); next to
 * anything else it is found ("jane@example.com4111…", "Jane_Doe"). Edges are checked in code: a Unicode
 * look-around per entity costs more to compile than the search itself.
 */
function locate(text: string, needles: Needle[]): Span[] {
  const spans: Span[] = []
  for (const { type, re, first, last } of needles) {
    re.lastIndex = 0
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const end = m.index + m[0].length
      if ((first && m.index > 0 && first.test(text[m.index - 1]!)) || (last && end < text.length && last.test(text[end]!))) {
        re.lastIndex = m.index + 1
        continue
      }
      spans.push({ type, start: m.index, end })
    }
  }
  return spans
}

/**
 * Overlapping spans merge into one replaced region, typed by its longest span (a detector wins a tie).
 * `toOriginal` maps a span of `redacted` back to the original text (a placeholder stands for its whole region),
 * or null when the span covers no original character that is still in the output.
 */
function redact(text: string, candidates: Candidate[], placeholder: string) {
  const sorted = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end)
  const regions: Array<{ start: number; end: number; lead: Candidate }> = []
  for (const c of sorted) {
    const last = regions.at(-1)
    if (last && c.start < last.end) {
      last.end = Math.max(last.end, c.end)
      if (better(c, last.lead)) last.lead = c
    } else regions.push({ start: c.start, end: c.end, lead: c })
  }
  const entities: Output['entities'] = []
  // The output as segments: kept original text (`from` set) or one region's placeholder.
  const segments: Array<{ out: number; length: number; from?: number; region?: { start: number; end: number } }> = []
  let redacted = ''
  let at = 0
  const keep = (end: number) => {
    if (end > at) segments.push({ out: redacted.length, length: end - at, from: at })
    redacted += text.slice(at, end)
  }
  for (const r of regions) {
    const type = r.lead.type as EntityType
    entities.push({ type, text: text.slice(r.start, r.end), start: r.start, end: r.end })
    keep(r.start)
    const shown = placeholder.replace(/\{(type|TYPE)\}/g, (_, token: string) => (token === 'TYPE' ? type.toUpperCase() : type))
    segments.push({ out: redacted.length, length: shown.length, region: r })
    redacted += shown
    at = r.end
  }
  keep(text.length)

  const toOriginal = (start: number, end: number): { start: number; end: number } | null => {
    let from = -1
    let to = -1
    let keptText = false
    for (const s of segments) {
      const sEnd = s.out + s.length
      // Zero-length placeholders between two touched characters are inside the span too.
      if (sEnd < start || s.out > end || (s.length > 0 && (sEnd <= start || s.out >= end))) continue
      if (s.length === 0 && (s.out <= start || s.out >= end)) continue
      const lo = s.from !== undefined ? s.from + Math.max(0, start - s.out) : s.region!.start
      const hi = s.from !== undefined ? s.from + Math.min(s.length, end - s.out) : s.region!.end
      if (s.from !== undefined) keptText = true
      if (from < 0 || lo < from) from = lo
      if (hi > to) to = hi
    }
    return keptText ? { start: from, end: to } : null
  }
  return { result: { redacted, entities, entityCount: entities.length }, toOriginal }
}

function better(a: Candidate, b: Candidate): boolean {
  const la = a.end - a.start
  const lb = b.end - b.start
  return la > lb || (la === lb && a.fromDetector && !b.fromDetector)
}
