import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

const SENTIMENTS = ['positive', 'negative', 'neutral', 'mixed'] as const
export const Sentiment = StringEnum(SENTIMENTS)
const Score = Type.Number({ minimum: -1, maximum: 1 })

export const Result = Type.Object(
  {
    sentiment: Sentiment,
    score: Score,
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    aspects: Type.Array(
      Type.Object(
        {
          aspect: Type.String({ minLength: 1 }),
          sentiment: Sentiment,
          score: Score,
          /** Only on aspects the caller asked for: false when the text does not talk about it. */
          mentioned: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    themes: Type.Array(Type.String({ minLength: 1 }), { maxItems: 10 }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 500_000 }),
    aspects: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, uniqueItems: true })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
