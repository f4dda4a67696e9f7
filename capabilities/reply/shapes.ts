import { Type, type TUnsafe } from '@sinclair/typebox'

/** A string enum as JSON Schema `enum`. */
export const StringEnum = <T extends string>(values: readonly T[]): TUnsafe<T> => Type.Unsafe<T>({ type: 'string', enum: [...values] })

export const TONES = ['professional', 'friendly', 'apologetic', 'firm'] as const
export type Tone = (typeof TONES)[number]

export const ReplyResult = Type.Object(
  {
    reply: Type.String({ minLength: 1, maxLength: 20_000 }),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    internalNote: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
  },
  { additionalProperties: false },
)
