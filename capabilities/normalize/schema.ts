import { Type } from '@sinclair/typebox'
import { EXPLICIT_NULL } from '../../core/capability.ts'

export const MAX_RECORDS = 1000
export const MAX_FIELDS = 50

/** Values are scalars: records are rows (a CSV line, a CRM contact), not documents. */
export const Scalar = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()])
export const InputRecord = Type.Object(
  {},
  { additionalProperties: Scalar, maxProperties: MAX_FIELDS, propertyNames: { type: 'string', maxLength: 100 } },
)

const AnyScalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])

export const NormalizeResult = Type.Object(
  {
    records: Type.Array(Type.Object({}, { additionalProperties: AnyScalar })),
    changes: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0 }),
          field: Type.String(),
          // null in from/to is the record's value, not an unknown: kept (README).
          from: Type.Optional(
            Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
              [EXPLICIT_NULL]: true,
              description: 'Absent when the field did not exist in the input record.',
            }),
          ),
          to: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { [EXPLICIT_NULL]: true }),
          reason: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
