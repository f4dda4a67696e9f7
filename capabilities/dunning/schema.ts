import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const DEFAULT_STEPS = 3
export const MAX_DAY = 365
export const Channel = StringEnum(['email', 'sms'] as const)

export const Result = Type.Object(
  {
    sequence: Type.Array(
      Type.Object(
        {
          day: Type.Integer({ minimum: 0, maximum: MAX_DAY, description: 'days after the call; 0 = today' }),
          // Optional (README): the calendar date of `day`, computed by code from the day of the call (UTC).
          date: Type.Optional(Type.String({ format: 'date' })),
          channel: Channel,
          subject: Type.Optional(Type.String({ maxLength: 200 })),
          message: Type.String({ minLength: 1, maxLength: 5000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10, description: 'exactly `steps` steps, days strictly increasing' },
    ),
    escalationAdvice: Type.String({ minLength: 1, maxLength: 4000 }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    invoice: Type.Object(
      {
        number: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
        currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3 })),
        dueDate: Type.Optional(Type.String({ format: 'date', maxLength: 10 })),
        daysOverdue: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
      },
      { additionalProperties: false },
    ),
    customer: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        history: Type.Optional(Type.String({ maxLength: 10_000 })),
      },
      { additionalProperties: false },
    ),
    tone: Type.Optional(StringEnum(['friendly', 'firm', 'final'] as const)),
    channel: Type.Optional(Channel),
    steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: DEFAULT_STEPS })),
    // Optional (README): who signs the messages, and a payment link every message must carry.
    senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    paymentUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
