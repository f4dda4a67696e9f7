import { Type } from '@sinclair/typebox'
import { InlineFile, defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { CategoryName, ModerateResult } from './shapes.ts'

export default defineCapability({
  name: 'moderate',
  summary: 'Allow, review or block text or an image against a caller policy, with categories and excerpts',
  price: 2,
  async: false,
  ratePerMinute: 60,
  model: 'vision',
  request: Type.Object(
    {
      text: Type.Optional(Type.String({ minLength: 1, maxLength: 500_000 })),
      // Inline image: base64 bytes; the bytes decide the type (PNG, JPEG, GIF or WebP), mimeType is a hint.
      image: Type.Optional(InlineFile),
      // http(s) only: fetched under the C12 guard (public addresses, 20 MiB, 20 s, 3 redirects).
      imageUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
      policy: Type.Optional(Type.String({ maxLength: 20_000 })),
      categories: Type.Optional(
        Type.Array(CategoryName, {
          minItems: 1,
          maxItems: 50,
          uniqueItems: true,
          description: 'The category names to report against; when given, every returned category is one of them',
        }),
      ),
    },
    { additionalProperties: false, oneOf: [{ required: ['text'] }, { required: ['image'] }, { required: ['imageUrl'] }] },
  ),
  check,
  response: ModerateResult,
  example: {
    request: { text: 'Buy cheap followers now!!! DM me at spam@example.com', policy: 'No spam, no harassment, no adult content.' },
    response: {
      flagged: true,
      decision: 'block',
      categories: [{ category: 'spam', severity: 'high', excerpt: 'Buy cheap followers now!!!' }],
      rationale: 'Unsolicited promotion of fake followers is spam under the policy.',
    },
  },
  handler,
})
