import { Type, type Static } from '@sinclair/typebox'
import { EXPLICIT_NULL } from '../../core/capability.ts'

const MAX_RECORDS = 1000
const MAX_FIELDS = 50

/** Values are scalars: records are rows (a CSV line, a CRM contact), not documents. */
const Scalar = Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), Type.Null()])
const InputRecord = Type.Object(
  {},
  { additionalProperties: Scalar, maxProperties: MAX_FIELDS, propertyNames: { type: 'string', maxLength: 100 } },
)

const AnyScalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])

export const Result = Type.Object(
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

export const Request = Type.Object(
  {
    records: Type.Array(InputRecord, {
      minItems: 1,
      maxItems: MAX_RECORDS,
      description:
        'Flat records: at most 50 fields each, values string (≤ 2,000 chars), number, boolean or null. The answer has the same records in the same order.',
    }),
    fields: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description:
          'Only these fields may change (and may be added where missing). Without it, only fields a record already has may change.',
      }),
    ),
    instructions: Type.Optional(
      Type.String({ maxLength: 4000, description: 'Normalisation rules in your words (formats, casing, code lists).' }),
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
