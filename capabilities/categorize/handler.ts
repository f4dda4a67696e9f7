import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { ApiError, type ErrorDetail } from '../../core/errors.ts'
import { ambiguousEntry } from '../../core/validation.ts'
import type { CategorizeResult } from './manifest.ts'

interface Input {
  items: string[]
  taxonomy: string[]
  multi?: boolean
  instructions?: string
}

type Result = Static<typeof CategorizeResult>

// What the model is asked for. Every property is required (strict structured output); the index range,
// the taxonomy and the one-result-per-item promise are checked by code below, not trusted.
const Answer = (multi: boolean) =>
  Type.Object(
    {
      results: Type.Array(
        Type.Object(
          {
            index: Type.Integer({ minimum: 0 }),
            category: Type.String({ maxLength: 200 }),
            ...(multi ? { categories: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 }) } : {}),
            confidence: Type.Number({ minimum: 0, maximum: 1 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 200 },
      ),
    },
    { additionalProperties: false },
  )
// Module-level: the kernel compiles (and caches) one validator per schema object.
const SINGLE = Answer(false)
const MULTI = Answer(true)
interface ModelAnswer {
  results: Array<{ index: number; category: string; categories?: string[]; confidence: number }>
}

const key = (s: string) => s.trim().toLowerCase()

/**
 * Code guarantees (capabilities.md): exactly one result per item, `index` 0..n-1 in order, `category` (and every
 * entry of `categories`) spelled as in the caller's taxonomy. A model answer that misses, repeats or invents an
 * index, or names a category outside the taxonomy, is a failed call (502 inference_failed, free): with a batch
 * a guessed category would be silently wrong data.
 */
/** Stage 4 (manifest `check`): no category of the taxonomy is blank or equal to another but for case. */
export const check = (input: Input): ErrorDetail[] =>
  ambiguousEntry(input.taxonomy, '/taxonomy', key, {
    blank: 'a category must not be blank',
    repeat: (c) => `"${c}" repeats another category (categories are matched case-insensitively)`,
  })

export async function handler(input: Input, ctx: CapabilityContext): Promise<Result> {
  // Unambiguous (check): one spelling per key.
  const allowed = new Map(input.taxonomy.map((c) => [key(c), c]))
  const multi = input.multi === true
  const n = input.items.length

  const answer = await ctx.ai.object<ModelAnswer>({
    system: [
      'You categorize each item of a numbered list against a fixed taxonomy.',
      `Allowed categories (use these exact spellings, nothing else): ${JSON.stringify(input.taxonomy)}.`,
      `Return "results" with exactly one entry per item, ${n} in all, each with the item's "index" (0 to ${n - 1}) as given.`,
      multi
        ? '"category" is the best category; "categories" lists every category that applies, best first.'
        : '"category" is the single best category.',
      '"confidence" is 0..1: how sure you are of "category".',
      input.instructions ? `Caller instructions: ${input.instructions}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: JSON.stringify(input.items.map((text, index) => ({ index, text }))),
    schema: multi ? MULTI : SINGLE,
  })

  const byIndex = new Map<number, ModelAnswer['results'][number]>()
  for (const r of answer.results) {
    if (!Number.isInteger(r.index) || r.index < 0 || r.index >= n) {
      throw new ApiError('inference_failed', `The model answered for item ${r.index}, which does not exist (items are 0..${n - 1}).`)
    }
    if (byIndex.has(r.index)) throw new ApiError('inference_failed', `The model answered twice for item ${r.index}.`)
    byIndex.set(r.index, r)
  }
  const results: Result['results'] = []
  for (let index = 0; index < n; index++) {
    const r = byIndex.get(index)
    if (!r) throw new ApiError('inference_failed', `The model gave no category for item ${index}; expected one result per item.`)
    const category = allowed.get(key(r.category))
    if (!category) throw new ApiError('inference_failed', `The model answered item ${index} with a category that is not in the taxonomy.`)
    const out: Result['results'][number] = { index, category, confidence: r.confidence }
    if (multi) {
      // Entries outside the taxonomy are dropped: `category` (already checked) is the answer, the rest is extra.
      const more = (r.categories ?? []).map((c) => allowed.get(key(c))).filter((c): c is string => c !== undefined)
      out.categories = [...new Set([category, ...more])]
    }
    results.push(out)
  }
  return { results }
}
