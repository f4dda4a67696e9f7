import { Type, type Static } from '@sinclair/typebox'
import { Profile, StringEnum } from '../../core/capability.ts'

const CHANNELS = ['email', 'linkedin'] as const
const MAX_STEPS = 10

export const Request = Type.Object(
  {
    lead: Profile,
    product: Profile,
    sender: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 200 })),
          role: Type.Optional(Type.String({ maxLength: 200 })),
          company: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    channel: Type.Optional(StringEnum(CHANNELS, { default: 'email' })),
    steps: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STEPS, default: 3 })),
    // Optional additions (README.md): the call to action and free instructions.
    goal: Type.Optional(Type.String({ maxLength: 500 })),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    sequence: Type.Array(
      Type.Object(
        {
          day: Type.Integer({ minimum: 1, maximum: 365 }),
          channel: StringEnum(CHANNELS),
          subject: Type.Optional(Type.String({ minLength: 1 })),
          message: Type.String({ minLength: 1 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_STEPS },
    ),
    personalizationPoints: Type.Array(Type.String({ minLength: 1 }), { maxItems: 10 }),
  },
  { additionalProperties: false },
)
export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
