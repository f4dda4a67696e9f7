import { Type, type Static } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { CHANNELS, handler, MAX_STEPS } from './handler.ts'

// A lead or a product: free text, or a flat JSON object (e.g. the result of /v1/enrich), bounded (C12).
// Values: scalars, arrays of scalars, or one level of nested object of scalars.
const Scalar = Type.Union([Type.String({ maxLength: 4000 }), Type.Number(), Type.Boolean(), Type.Null()])
const ScalarList = Type.Array(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]), { maxItems: 50 })
const Nested = Type.Object({}, { additionalProperties: Scalar, maxProperties: 40, propertyNames: { maxLength: 100 } })
export const Profile = Type.Union([
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

export const OutreachRequest = Type.Object(
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

export const OutreachResult = Type.Object(
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
export type OutreachResult = Static<typeof OutreachResult>

export default defineCapability({
  name: 'outreach',
  summary: 'Personalized outreach sequence from an enriched lead',
  price: 6,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: OutreachRequest,
  response: OutreachResult,
  example: {
    request: {
      lead: { name: 'Dana Ruiz', title: 'VP Finance', company: 'Northwind Logistics', industry: 'Freight', notes: 'Hiring two AP clerks' },
      product: 'Ledgerly: automated invoice capture and three-way matching for mid-market finance teams.',
      sender: { name: 'Sam Lee', role: 'Account Executive', company: 'Ledgerly' },
      channel: 'email',
      steps: 2,
    },
    response: {
      sequence: [
        {
          day: 1,
          channel: 'email',
          subject: 'Scaling AP at Northwind without two more hires',
          message:
            'Hi Dana, I saw Northwind is hiring two AP clerks. Ledgerly captures invoices and matches them to POs automatically... Worth a 15-minute look? Sam',
        },
        {
          day: 4,
          channel: 'email',
          subject: 'Re: Scaling AP at Northwind',
          message: 'Hi Dana, one number that may help: teams like yours cut invoice handling time by 70%. Open to a short call? Sam',
        },
      ],
      personalizationPoints: ['Northwind is hiring two AP clerks', 'Dana leads finance at a freight company'],
    },
  },
  handler,
})
