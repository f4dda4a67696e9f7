import { Type, type Static } from '@sinclair/typebox'
import { ApiError, MText, distinctTexts, type CapabilityContext } from '../../core/capability.ts'
import { type Input, type Output } from './schema.ts'

type Length = 'brief' | 'standard' | 'detailed'

/** Per length: how long the summary should be, and the most key points code lets through. */
const SHAPE: Record<Length, { summary: string; maxPoints: number }> = {
  brief: { summary: 'one or two sentences', maxPoints: 3 },
  standard: { summary: 'one short paragraph', maxPoints: 7 },
  detailed: { summary: 'several paragraphs covering every topic', maxPoints: 15 },
}
const MAX_ACTION_ITEMS = 50

/** What the model is asked for: every property required and closed, so it also works with strict structured outputs. */
const ModelAnswer = Type.Object(
  {
    summary: Type.String(),
    keyPoints: Type.Array(Type.String()),
    actionItems: Type.Array(Type.Object({ task: Type.String(), owner: MText }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ModelAnswer>

/**
 * Code guarantees: `length` shapes the answer and caps `keyPoints` (3 / 7 / 15); `actionItems` is `[]` when the
 * caller set `actionItems: false`, whatever the model says; blanks and repeats are dropped; `owner` appears only
 * when the model named one. An empty summary is a failed (free) call.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const length = input.length ?? 'standard'
  const wantActions = input.actionItems !== false
  const shape = SHAPE[length]
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You summarize the transcript, thread or report the user sends.',
      `"summary": ${shape.summary}, faithful to the text, no invented facts.`,
      `"keyPoints": at most ${shape.maxPoints} short, distinct points, most important first.`,
      wantActions
        ? '"actionItems": every concrete task the text assigns or agrees on, as {"task", "owner"}; "owner" is the person or team named as responsible, or null. [] when there are none.'
        : '"actionItems": always [] (the caller did not ask for them).',
    ].join('\n'),
    content: input.text,
    schema: ModelAnswer,
  })
  const summary = answer.summary.trim()
  if (!summary) throw new ApiError('inference_failed', 'The model returned an empty summary.')
  const result: Output = {
    summary,
    keyPoints: distinctTexts(answer.keyPoints).slice(0, shape.maxPoints),
    actionItems: [],
  }
  if (wantActions) {
    const seen = new Set<string>()
    for (const item of answer.actionItems) {
      const task = item.task.trim()
      const owner = item.owner?.trim()
      const key = `${task.toLowerCase()}\u0000${owner?.toLowerCase() ?? ''}`
      if (!task || seen.has(key)) continue
      seen.add(key)
      result.actionItems.push(owner ? { task, owner } : { task })
      if (result.actionItems.length === MAX_ACTION_ITEMS) break
    }
  }
  return result
}
