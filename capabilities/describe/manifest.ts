import { Type } from '@sinclair/typebox'
import { InlineFile, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

export const PURPOSES = ['alt', 'caption', 'product', 'detailed'] as const
export const MAX_TAGS = 30

const Tag = Type.String({ minLength: 1, maxLength: 64 })

export const DescribeResult = Type.Object(
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

export default defineCapability({
  name: 'describe',
  summary: 'Alt text, caption, tags and text found inside an image',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'vision',
  request: Type.Object(
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
  ),
  response: DescribeResult,
  example: {
    request: { imageUrl: 'https://example.com/shoe.jpg', purpose: 'product' },
    response: {
      altText: 'Red canvas sneaker with a white rubber sole, side view',
      caption: 'A red canvas low-top sneaker on a white background.',
      detailed: 'Low-top sneaker in red canvas with white laces, a white rubber toe cap and sole, and a small logo on the heel.',
      tags: ['sneaker', 'red', 'canvas', 'footwear'],
      embeddedText: 'CLASSIC',
    },
  },
  handler,
})
