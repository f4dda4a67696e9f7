import { Type, type Static } from '@sinclair/typebox'
import { EXPLICIT_NULL, Grounded, Nullable } from '../../core/capability.ts'

const FieldName = Type.String({ minLength: 1, maxLength: 200 })

export const Result = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          field: Type.String(),
          value: Nullable(Type.String(), {
            [EXPLICIT_NULL]: true,
            description: 'null: the text does not state this field',
          }),
          ...Grounded,
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 500_000 }),
    fields: Type.Array(FieldName, { minItems: 1, maxItems: 100, uniqueItems: true }),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
