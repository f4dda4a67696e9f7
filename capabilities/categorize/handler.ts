import { Type } from '@sinclair/typebox'
import { StringEnum, ambiguousEntry, type CapabilityContext, type ErrorDetail } from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

// What the model is asked for, per call: one result per item in item order (exactly n), categories from the
// caller's taxonomy as an enum. Position is the index, so none can be missing, repeated or invented.
const answerSchema = (taxonomy: string[], n: number, multi: boolean) => {
  const Category = StringEnum(taxonomy)
  return Type.Object(
    {
      results: Type.Array(
        Type.Object(
          {
            category: Category,
            ...(multi ? { categories: Type.Array(Category, { maxItems: taxonomy.length }) } : {}),
            confidence: Type.Number({ minimum: 0, maximum: 1 }),
          },
          { additionalProperties: false },
        ),
        { minItems: n, maxItems: n },
      ),
    },
    { additionalProperties: false },
  )
}
interface ModelAnswer {
  results: Array<{ category: string; categories?: string[]; confidence: number }>
}

const key = (s: string) => s.trim().toLowerCase()

/** Stage 4 (manifest `check`): no category of the taxonomy is blank or equal to another but for case. */
export const check = (input: Input): ErrorDetail[] =>
  ambiguousEntry(input.taxonomy, '/taxonomy', key, {
    blank: 'a category must not be blank',
    repeat: (c) => `"${c}" repeats another category (categories are matched case-insensitively)`,
  })

/**
 * Code guarantees (capabilities.md): exactly one result per item, `index` 0..n-1 in order, `category` (and every
 * entry of `categories`) spelled as in the caller's taxonomy — stated by the answer schema, checked by Ajv, so an
 * answer breaking them gets the corrective retry, then 502 inference_failed (free).
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const multi = input.multi === true
  const n = input.items.length

  const answer = await ctx.ai.object<ModelAnswer>({
    system: [
      'You categorize each item of a numbered list against a fixed taxonomy.',
      `Allowed categories (use these exact spellings, nothing else): ${JSON.stringify(input.taxonomy)}.`,
      `Return "results" with exactly one entry per item, ${n} in all, in the order of the items (index 0 to ${n - 1}).`,
      multi
        ? '"category" is the best category; "categories" lists every category that applies, best first.'
        : '"category" is the single best category.',
      '"confidence" is 0..1: how sure you are of "category".',
      input.instructions ? `Caller instructions: ${input.instructions}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: JSON.stringify(input.items.map((text, index) => ({ index, text }))),
    schema: answerSchema(input.taxonomy, n, multi),
  })

  const results: Output['results'] = answer.results.map((r, index) => {
    const out: Output['results'][number] = { index, category: r.category, confidence: r.confidence }
    if (multi) out.categories = [...new Set([r.category, ...(r.categories ?? [])])]
    return out
  })
  return { results }
}
