import { Type, type Static } from '@sinclair/typebox'

export const Result = Type.Object(
  {
    data: Type.Unknown({ description: "Any JSON value: the input shaped to the caller's schema (null when the model produced no JSON)." }),
    valid: Type.Boolean({
      description: 'true exactly when data validates against schema (checked by the service, after at most one retry).',
    }),
    notes: Type.Array(Type.String(), {
      description: 'When valid is false, the validation errors first; then remarks on assumptions or input that did not fit.',
    }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    input: Type.String({ minLength: 1, maxLength: 500_000 }),
    // The schema's own size and depth are checked by `check` (stage 4, so dry runs see it), and it is compiled, strictly, before any model call.
    schema: Type.Object(
      {},
      {
        maxProperties: 100,
        description:
          'A JSON Schema: draft-07 by default, 2019-09 or 2020-12 via $schema; at most 100,000 characters of JSON and 32 levels deep (past either, 400 schema_too_complex); ' +
          'unknown keywords and formats are errors; $ref only within the schema. A schema that does not compile is 400 invalid_request.',
      },
    ),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
