import { Type } from '@sinclair/typebox'
import { Prose, StringEnum, cutProse, perShape, type CapabilityContext } from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

const RATIONALE_MAX = 500

/** The answer schema of one call: the caller's labels as the enum, so a constrained model can only pick one. */
const answerSchema = perShape((labels: string[], multi: boolean) => {
  const Label = StringEnum(labels)
  return Type.Object(
    {
      label: Label,
      ...(multi ? { labels: Type.Array(Label, { maxItems: labels.length }) } : {}),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      rationale: Prose(RATIONALE_MAX, { description: 'one line' }),
    },
    { additionalProperties: false },
  )
})

/** Every label returned is one of the caller's (the schema's enum, checked by Ajv); a long rationale is cut with a warning. */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const multi = input.multi === true
  const answer = await ctx.ai.object<{ label: string; labels?: string[]; confidence: number; rationale: string }>({
    system: [
      'You classify text against a fixed set of labels.',
      `Allowed labels: ${JSON.stringify(input.labels)}.`,
      multi ? 'Return the best label in "label" and every label that applies in "labels".' : 'Return the single best label in "label".',
      'confidence is 0..1; rationale is one short line.',
      input.instructions ?? '',
    ].join('\n'),
    content: input.text,
    schema: answerSchema(input.labels, multi),
  })
  const warnings: string[] = []
  const result: Output = {
    label: answer.label,
    confidence: answer.confidence,
    rationale: cutProse(answer.rationale.split('\n')[0]!.trim(), RATIONALE_MAX, 'rationale', warnings),
  }
  if (multi) result.labels = [...new Set([answer.label, ...(answer.labels ?? [])])]
  if (warnings.length) result.warnings = warnings
  return result
}
