import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { type Input, type Output } from './schema.ts'

/** What the model is asked for: every property required and closed, so it also works with strict structured outputs. */
const ModelAnswer = Type.Object(
  {
    matches: Type.Array(
      Type.Object(
        { aIndex: Type.Integer(), bIndex: Type.Integer(), confidence: Type.Number({ minimum: 0, maximum: 1 }), reason: Type.String() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ModelAnswer>

/**
 * The model proposes pairs; code guarantees (capabilities.md): every index is in range, each row of `a` and of
 * `b` is matched at most once (conflicts keep the pair with the highest confidence, the earlier one on a tie),
 * pairs under `minConfidence` are dropped, and `unmatchedA` / `unmatchedB` are computed from what is left.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You match records of set A to the records of set B that describe the same real-world entity.',
      input.keys?.length ? `Compare mainly on these fields: ${JSON.stringify(input.keys)}.` : 'Decide which fields identify an entity.',
      'Each record of A matches at most one record of B and each record of B at most one record of A. Leave out records that have no counterpart.',
      'Answer {"matches": [{"aIndex", "bIndex", "confidence", "reason"}]}: indexes as given in the lists, confidence 0..1, reason one short line.',
      input.instructions ? `Caller instructions: ${input.instructions}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: [
      `Set A (${input.a.length} records):`,
      ...input.a.map((r, i) => `A[${i}] ${JSON.stringify(r)}`),
      '',
      `Set B (${input.b.length} records):`,
      ...input.b.map((r, i) => `B[${i}] ${JSON.stringify(r)}`),
    ].join('\n'),
    schema: ModelAnswer,
  })
  return settle(answer.matches, input.a.length, input.b.length, input.minConfidence ?? 0)
}

export function settle(proposed: Answer['matches'], aCount: number, bCount: number, minConfidence: number): Output {
  const inRange = (i: number, n: number) => Number.isInteger(i) && i >= 0 && i < n
  const candidates = proposed
    .map((m, order) => ({ ...m, order, confidence: Math.min(1, Math.max(0, m.confidence)) }))
    .filter((m) => inRange(m.aIndex, aCount) && inRange(m.bIndex, bCount) && m.confidence >= minConfidence)
    .sort((x, y) => y.confidence - x.confidence || x.order - y.order)
  const usedA = new Set<number>()
  const usedB = new Set<number>()
  const matches: Output['matches'] = []
  for (const m of candidates) {
    if (usedA.has(m.aIndex) || usedB.has(m.bIndex)) continue
    usedA.add(m.aIndex)
    usedB.add(m.bIndex)
    const reason = m.reason.split('\n')[0]!.trim()
    matches.push({ aIndex: m.aIndex, bIndex: m.bIndex, confidence: m.confidence, ...(reason ? { reason } : {}) })
  }
  matches.sort((x, y) => x.aIndex - y.aIndex)
  const unmatched = (n: number, used: Set<number>) => Array.from({ length: n }, (_, i) => i).filter((i) => !used.has(i))
  return { matches, unmatchedA: unmatched(aCount, usedA), unmatchedB: unmatched(bCount, usedB) }
}
