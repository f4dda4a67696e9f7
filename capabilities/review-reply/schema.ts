import { StringEnum } from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'

export const Sentiment = StringEnum(['positive', 'negative', 'neutral', 'mixed'] as const)

export const Result = Type.Object(
  {
    reply: Type.String({ minLength: 1, maxLength: 4000 }),
    sentiment: {
      ...Sentiment,
      description: 'of the review; with a rating, 4–5 stars are never negative and 1–2 never positive (mixed instead)',
    },
    issues: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 }),
    escalate: Type.Boolean({
      description:
        "true when the model says so, when the rating is 1–2 with issues, or when the review uses legal, safety or health language; code never clears the model's flag",
    }),
    // Optional (README): why code or the model escalated, so a person can act on it.
    escalationReasons: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    review: Type.String({ minLength: 1, maxLength: 20_000 }),
    rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    business: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          voice: Type.Optional(Type.String({ maxLength: 2000 })),
        },
        { additionalProperties: false },
      ),
    ),
    resolution: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
