import { Type } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const DECISIONS = ['allow', 'review', 'block'] as const
export const SEVERITIES = ['low', 'medium', 'high'] as const
export type Severity = (typeof SEVERITIES)[number]

export const CategoryName = Type.String({ minLength: 1, maxLength: 100 })

export const ModerateResult = Type.Object(
  {
    flagged: Type.Boolean(),
    decision: StringEnum(DECISIONS),
    categories: Type.Array(
      Type.Object(
        {
          category: CategoryName,
          severity: StringEnum(SEVERITIES),
          excerpt: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    rationale: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false },
)
