import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

const LENGTHS = ['shorter', 'same', 'longer'] as const
export type Length = (typeof LENGTHS)[number]

// Copy, not books: a rewrite comes back in one model answer, and 50,000 characters in (and up to about twice
// that out) stays inside the output limits of current models. Longer texts would fail mid-answer.
export const MAX_TEXT = 50_000

export const Result = Type.Object(
  {
    rewritten: Type.String({ minLength: 1, maxLength: 4 * MAX_TEXT }),
    changes: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
)

const Brief = Type.String({ maxLength: 2000 })

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: MAX_TEXT }),
    voice: Type.Optional(Brief),
    goal: Type.Optional(Brief),
    audience: Type.Optional(Brief),
    length: Type.Optional(StringEnum(LENGTHS)),
    preserve: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 50,
        description: 'Phrases (product names, legal lines) that must come back unchanged wherever they occur in text',
      }),
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
