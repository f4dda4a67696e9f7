import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const CHANNELS = ['amazon', 'shopify', 'generic'] as const

export const Request = Type.Object(
  {
    product: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        features: Type.Optional(Type.String({ maxLength: 10_000 })),
        audience: Type.Optional(Type.String({ maxLength: 1000 })),
        keywords: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
        // Optional addition (README.md): the brand, which Amazon titles lead with.
        brand: Type.Optional(Type.String({ maxLength: 100 })),
      },
      { additionalProperties: false },
    ),
    channel: Type.Optional(StringEnum(CHANNELS, { default: 'generic' })),
    // Optional addition (README.md): brand voice or tone.
    voice: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    titles: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 5 }),
    bullets: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { minItems: 1, maxItems: 10 }),
    description: Type.String({ minLength: 1, maxLength: 5000 }),
    seoKeywords: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 }),
  },
  { additionalProperties: false },
)
export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
