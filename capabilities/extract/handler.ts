import { Type, type Static } from '@sinclair/typebox'
import { DocumentText, MSupport, MText, SUPPORT_RULES, type CapabilityContext } from '../../core/capability.ts'
import { type Input, type Output } from './schema.ts'

type Item = Output['results'][number]
type Answered = Static<typeof ModelAnswer>['results'][number]

/** What the model is asked for: every property required and closed, so it also works with strict structured outputs. */
const ModelAnswer = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          field: Type.String(),
          value: MText,
          ...MSupport,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

/** "Invoice Number", "invoice_number" and "invoiceNumber" are the same key when nothing else claims it. */
const loose = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')
const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0)

/**
 * The model proposes; code guarantees (capabilities.md): exactly one result per requested field, in the
 * caller's order, `field` equal to the requested name. Answers for fields nobody asked for are dropped; a field
 * the model left out is `value: null, confidence: 0`.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const answer = await ctx.ai.object<Static<typeof ModelAnswer>>({
    system: [
      'You extract named fields from the text the user sends.',
      `Fields, in order: ${JSON.stringify(input.fields)}.`,
      'Answer {"results": [...]} with exactly one entry per field, in that order, "field" spelled exactly as given.',
      '"value" is the field\'s value as found in the text (a string; dates as YYYY-MM-DD, amounts as plain numbers), or null when the text does not contain it. Never invent a value.',
      SUPPORT_RULES,
      input.instructions ? `Caller instructions: ${input.instructions}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: input.text,
    schema: ModelAnswer,
  })
  return { results: rekey(input.fields, answer.results, DocumentText.ofText(input.text)) }
}

function rekey(fields: string[], answers: Answered[], text: DocumentText): Item[] {
  const exact = new Map<string, Answered[]>()
  for (const a of answers) {
    const list = exact.get(a.field) ?? []
    list.push(a)
    exact.set(a.field, list)
  }
  // A loose spelling only counts when exactly one requested field has that loose form.
  const looseOwners = new Map<string, number>()
  for (const f of fields) looseOwners.set(loose(f), (looseOwners.get(loose(f)) ?? 0) + 1)
  const requested = new Set(fields)
  const byLoose = new Map<string, Answered[]>()
  for (const a of answers) {
    if (requested.has(a.field)) continue
    const k = loose(a.field)
    if (looseOwners.get(k) !== 1) continue
    const list = byLoose.get(k) ?? []
    list.push(a)
    byLoose.set(k, list)
  }
  return fields.map((field) => {
    const best = pick(exact.get(field) ?? byLoose.get(loose(field)) ?? [])
    if (!best) return { field, value: null, evidence: null, grounded: false, confidence: 0 }
    const value = typeof best.value === 'string' && best.value.trim() !== '' ? best.value.trim() : null
    // A null value claims the text has none: nothing to quote, so it is never grounded.
    return { field, value, ...text.ground([value], { ...best, confidence: clamp01(best.confidence ?? 0) }) }
  })
}

/** Several answers for one field: a value beats null, then the higher confidence wins. */
function pick(items: Answered[]): Answered | undefined {
  const found = (i: Answered) => (typeof i.value === 'string' && i.value.trim() !== '' ? 1 : 0)
  return [...items].sort((x, y) => found(y) - found(x) || (y.confidence ?? 0) - (x.confidence ?? 0))[0]
}
