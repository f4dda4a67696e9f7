import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

const TONES = ['professional', 'friendly', 'apologetic', 'firm'] as const
export type Tone = (typeof TONES)[number]

export const Result = Type.Object(
  {
    reply: Type.String({ minLength: 1, maxLength: 20_000 }),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    internalNote: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    thread: Type.String({ minLength: 1, maxLength: 500_000 }),
    context: Type.Optional(Type.String({ maxLength: 100_000 })),
    tone: Type.Optional(StringEnum(TONES)),
    goal: Type.Optional(Type.String({ maxLength: 2000 })),
    senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
