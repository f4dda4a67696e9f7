import { Type } from '@sinclair/typebox'

export const LENGTHS = ['shorter', 'same', 'longer'] as const
export type Length = (typeof LENGTHS)[number]

// Copy, not books: a rewrite comes back in one model answer, and 50,000 characters in (and up to about twice
// that out) stays inside the output limits of current models. Longer texts would fail mid-answer.
export const MAX_TEXT = 50_000

export const RewriteResult = Type.Object(
  {
    rewritten: Type.String({ minLength: 1, maxLength: 4 * MAX_TEXT }),
    changes: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
)
