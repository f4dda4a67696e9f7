// /v1/fraud-flag: the request (any order object) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const Weight = StringEnum(['low', 'medium', 'high'] as const)

const Level = StringEnum(['low', 'medium', 'high'] as const, {
  description: 'from riskScore by code: below 0.34 low, 0.34 to below 0.67 medium, 0.67 and above high',
})

export const Result = Type.Object(
  {
    riskScore: Type.Number({ minimum: 0, maximum: 1 }),
    riskLevel: Level,
    signals: Type.Array(
      Type.Object(
        { signal: Type.String({ minLength: 1, maxLength: 200 }), weight: Weight, note: Type.String({ maxLength: 500 }) },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    recommendedChecks: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 }),
    recommendation: StringEnum(['allow', 'review', 'block'] as const, {
      description: 'from riskLevel by code: low allow, medium review, high block',
    }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    // Free-form: whatever the shop or processor knows about the order (C12: at most 200 keys at the top;
    // `check` also bounds its size as JSON).
    order: Type.Object({}, { additionalProperties: true, minProperties: 1, maxProperties: 200 }),
    context: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
export type Level = Output['riskLevel']
