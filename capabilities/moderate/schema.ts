import { StringEnum } from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'
import { InlineFile } from '../../core/capability.ts'

export const DECISIONS = ['allow', 'review', 'block'] as const
export const SEVERITIES = ['low', 'medium', 'high'] as const
export type Severity = (typeof SEVERITIES)[number]

const CategoryName = Type.String({ minLength: 1, maxLength: 100 })

export const Result = Type.Object(
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

export const Request = Type.Object(
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
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
