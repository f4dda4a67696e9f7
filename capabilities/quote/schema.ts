// /v1/quote: the request (a job, the caller's rates, past quotes) and the result.
import { Type, type Static } from '@sinclair/typebox'

const Money = Type.Number({ minimum: -1e12, maximum: 1e12 })

export const Result = Type.Object(
  {
    lineItems: Type.Array(
      Type.Object(
        {
          description: Type.String({ minLength: 1, maxLength: 500 }),
          quantity: Type.Optional(Type.Number({ minimum: 0 })),
          unitPrice: Type.Optional(Money),
          amount: { ...Money, description: 'quantity × unitPrice (code) when both are given, else the lump sum' },
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    subtotal: Type.Optional({ ...Money, description: 'sum of the line amounts (code)' }),
    tax: Type.Optional(
      Type.Number({ minimum: 0, description: 'taxRatePct × subtotal (code) when taxRatePct is given, else a tax the job or rates state' }),
    ),
    total: Type.Number({ minimum: 0, description: 'subtotal + tax (code)' }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    assumptions: Type.Array(Type.String({ maxLength: 500 }), { maxItems: 50 }),
    scopeNotes: Type.Optional(Type.String({ maxLength: 4000 })),
    // Optional (README): what code corrected or found off in the model's arithmetic and pricing.
    warnings: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
)

const RateRow = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 200 }),
    unit: Type.Optional(Type.String({ maxLength: 50 })),
    unitPrice: Type.Number({ minimum: 0, maximum: 1e9 }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    job: Type.String({ minLength: 1, maxLength: 20_000 }),
    // Free text ("labour $85/h, call-out $60") or a price list code checks the lines against.
    rates: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Array(RateRow, { maxItems: 200 })])),
    pastQuotes: Type.Optional(
      Type.Union([Type.String({ maxLength: 100_000 }), Type.Array(Type.String({ maxLength: 20_000 }), { maxItems: 10 })]),
    ),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3 })),
    // Optional (README): tax as a percentage of the subtotal, applied by code.
    taxRatePct: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
export type Rate = Static<typeof RateRow>
