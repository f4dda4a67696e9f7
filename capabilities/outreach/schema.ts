import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

const CHANNELS = ['email', 'linkedin'] as const
const MAX_STEPS = 10

// A lead or a product: free text, or a flat JSON object (e.g. the result of /v1/enrich), bounded (C12).
// Values: scalars, arrays of scalars, or one level of nested object of scalars.
const Scalar = Type.Union([Type.String({ maxLength: 4000 }), Type.Number(), Type.Boolean(), Type.Null()])
const ScalarList = Type.Array(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]), { maxItems: 50 })
const Nested = Type.Object({}, { additionalProperties: Scalar, maxProperties: 40, propertyNames: { maxLength: 100 } })
const Profile = Type.Union([
  Type.String({ minLength: 1, maxLength: 20_000 }),
  Type.Object(
    {},
    {
      additionalProperties: Type.Union([Scalar, ScalarList, Nested]),
      minProperties: 1,
      maxProperties: 60,
      propertyNames: { maxLength: 100 },
    },
  ),
])

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
