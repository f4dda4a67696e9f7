import { Type } from '@sinclair/typebox'
import { ambiguousEntry, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const Label = Type.String({ minLength: 1, maxLength: 200 })

export const ClassifyResult = Type.Object(
  {
    label: Label,
    labels: Type.Optional(Type.Array(Label, { maxItems: 200 })),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    rationale: Type.String({ maxLength: 500 }),
    /** What code changed in the model's answer, e.g. a rationale shortened to its limit. */
    warnings: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'classify',
  summary: 'Label text against a taxonomy: label, confidence, one-line rationale',
  price: 2,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      text: Type.String({ minLength: 1, maxLength: 500_000 }),
      labels: Type.Array(Label, { minItems: 2, maxItems: 200, uniqueItems: true }),
      multi: Type.Optional(Type.Boolean()),
      instructions: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  // Labels are matched case-insensitively (the model's "Billing" is the caller's "billing"), so two labels that
  // differ only in case or surrounding spaces could not be told apart: refused before any money moves.
  check: (input: { labels: string[] }) =>
    ambiguousEntry(input.labels, '/labels', (l) => l.trim().toLowerCase(), {
      blank: 'must not be blank',
      repeat: (l) => `"${l}" repeats another label (labels are matched case-insensitively)`,
    }),
  response: ClassifyResult,
  example: {
    request: { text: 'My card was charged twice for the same order.', labels: ['billing', 'technical', 'shipping'] },
    response: { label: 'billing', confidence: 0.93, rationale: 'A duplicate charge is a billing problem.' },
  },
  handler,
})
