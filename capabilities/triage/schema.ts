import { StringEnum } from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'

const Name = Type.String({ minLength: 1, maxLength: 200 })
export const PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const
// The same four values as /v1/sentiment.
export const SENTIMENTS = ['positive', 'negative', 'neutral', 'mixed'] as const

export const Result = Type.Object(
  {
    priority: StringEnum(PRIORITIES),
    category: Name,
    team: Type.Optional(Name),
    sentiment: StringEnum(SENTIMENTS),
    slaRisk: Type.Boolean(),
    summary: Type.String({ minLength: 1, maxLength: 2000 }),
    suggestedFirstResponse: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    ticket: Type.String({ minLength: 1, maxLength: 500_000 }),
    categories: Type.Optional(Type.Array(Name, { minItems: 1, maxItems: 200, uniqueItems: true })),
    teams: Type.Optional(Type.Array(Name, { minItems: 1, maxItems: 200, uniqueItems: true })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
