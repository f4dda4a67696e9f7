import { Type } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const Name = Type.String({ minLength: 1, maxLength: 200 })
export const PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const
// The same four values as /v1/sentiment.
export const SENTIMENTS = ['positive', 'negative', 'neutral', 'mixed'] as const

export const TriageResult = Type.Object(
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
