import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Grounded, Groundings, Nullable } from '../../core/capability.ts'

/** The single-valued fields that carry evidence (issue 29); the type is a classification, obligations are summaries. */
export const GROUNDED = ['effectiveDate', 'term', 'governingLaw', 'renewal.noticePeriod'] as const

const NStr = (maxLength: number) => Nullable(Type.String({ maxLength }))

export const Result = Type.Object(
  {
    contractType: Type.String({ minLength: 1, maxLength: 200, description: 'lower case, e.g. "services agreement", "nda", "lease"' }),
    parties: Type.Array(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 500 }), role: Type.String({ minLength: 1, maxLength: 200 }), ...Grounded },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
    effectiveDate: Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 })),
    term: NStr(2000),
    renewal: Type.Union(
      [Type.Object({ autoRenews: Type.Boolean(), noticePeriod: NStr(1000) }, { additionalProperties: false }), Type.Null()],
      { description: 'null when the contract says nothing about renewal' },
    ),
    governingLaw: NStr(500),
    obligations: Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 1000 }),
    riskFlags: Type.Array(
      Type.Object(
        {
          clause: Type.String({ minLength: 1, maxLength: 1000 }),
          severity: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
          reason: Type.String({ maxLength: 5000 }),
          ...Grounded,
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000 },
    ),
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 1000, description: "what code found wrong with the model's answer" }),
    ),
  },
  { additionalProperties: false },
)
export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
