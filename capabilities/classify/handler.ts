import type { Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { ApiError } from '../../core/errors.ts'
import type { ClassifyResult } from './manifest.ts'

interface Input {
  text: string
  labels: string[]
  multi?: boolean
  instructions?: string
}

/** The model proposes; code guarantees every label returned is one of the caller's (capabilities.md). */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Static<typeof ClassifyResult>> {
  const answer = await ctx.ai.object<Static<typeof ClassifyResult>>({
    system: [
      'You classify text against a fixed set of labels.',
      `Allowed labels: ${JSON.stringify(input.labels)}.`,
      input.multi ? 'Return the best label in "label" and every label that applies in "labels".' : 'Return the single best label in "label".',
      'confidence is 0..1; rationale is one short line.',
      input.instructions ?? '',
    ].join('\n'),
    content: input.text,
  })
  const allowed = new Map(input.labels.map((l) => [l.toLowerCase(), l]))
  const pick = (l: string) => allowed.get(l.trim().toLowerCase())
  const label = pick(answer.label)
  // A label outside the taxonomy is no answer at all: a failed call, free, not a guess we charge for.
  if (!label) throw new ApiError('inference_failed', 'The model answered with a label that is not one of the labels given.')
  const result: Static<typeof ClassifyResult> = {
    label,
    confidence: answer.confidence,
    rationale: answer.rationale.split('\n')[0]!.trim(),
  }
  if (input.multi) result.labels = [...new Set([label, ...(answer.labels ?? []).map(pick).filter((l): l is string => l !== undefined)])]
  return result
}
