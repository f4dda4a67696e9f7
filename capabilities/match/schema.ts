import { Type } from '@sinclair/typebox'

/** A flat record: at most 50 fields of scalar values (nested objects are not accepted). */
export const Scalar = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()])
export const RecordSchema = Type.Object(
  {},
  { additionalProperties: Scalar, maxProperties: 50, propertyNames: { type: 'string', maxLength: 100 } },
)

export const MatchResult = Type.Object(
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
