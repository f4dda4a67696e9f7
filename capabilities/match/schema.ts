import { Type, type Static } from '@sinclair/typebox'

/** A flat record: at most 50 fields of scalar values (nested objects are not accepted). */
const Scalar = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()])
const RecordSchema = Type.Object({}, { additionalProperties: Scalar, maxProperties: 50, propertyNames: { type: 'string', maxLength: 100 } })

export const Result = Type.Object(
  {
    matches: Type.Array(
      Type.Object(
        {
          aIndex: Type.Integer({ minimum: 0 }),
          bIndex: Type.Integer({ minimum: 0 }),
          confidence: Type.Number({ minimum: 0, maximum: 1 }),
          reason: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    unmatchedA: Type.Array(Type.Integer({ minimum: 0 })),
    unmatchedB: Type.Array(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

const MAX_ROWS = 500

export const Request = Type.Object(
  {
    a: Type.Array(RecordSchema, { minItems: 1, maxItems: MAX_ROWS }),
    b: Type.Array(RecordSchema, { minItems: 1, maxItems: MAX_ROWS }),
    keys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
    minConfidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
