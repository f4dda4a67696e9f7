import { Type, type Static } from '@sinclair/typebox'

export const Label = Type.String({ minLength: 1, maxLength: 200 })

export const Result = Type.Object(
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

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 500_000 }),
    labels: Type.Array(Label, { minItems: 2, maxItems: 200, uniqueItems: true }),
    multi: Type.Optional(Type.Boolean()),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
