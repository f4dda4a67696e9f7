import { Type } from '@sinclair/typebox'

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
