import { Type, type Static } from '@sinclair/typebox'
import { InlineFile } from '../../core/capability.ts'

export const PURPOSES = ['alt', 'caption', 'product', 'detailed'] as const
const MAX_TAGS = 30

const Tag = Type.String({ minLength: 1, maxLength: 64 })

export const Result = Type.Object(
  {
    altText: Type.String({ minLength: 1, maxLength: 300, description: 'one line, for the alt attribute' }),
    caption: Type.String({ minLength: 1, maxLength: 1000 }),
    detailed: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'present when purpose is detailed or product' })),
    tags: Type.Array(Tag, { maxItems: MAX_TAGS, description: 'lower-case, unique, at most maxTags' }),
    embeddedText: Type.Optional(
      Type.String({ minLength: 1, maxLength: 20_000, description: 'text visible in the image; absent when there is none' }),
    ),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    // http(s) only: refusing other schemes here gives a 400 with a path instead of a failed fetch.
    imageUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
    image: Type.Optional(InlineFile),
    purpose: Type.Optional(
      Type.Union(
        PURPOSES.map((p) => Type.Literal(p)),
        { default: 'alt' },
      ),
    ),
    maxTags: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TAGS, default: 10 })),
    context: Type.Optional(Type.String({ maxLength: 2000, description: 'where the image is used, to focus the description' })),
  },
  { additionalProperties: false, oneOf: [{ required: ['imageUrl'] }, { required: ['image'] }] },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
