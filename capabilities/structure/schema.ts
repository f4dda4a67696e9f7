import { Type } from '@sinclair/typebox'

export const StructureResult = Type.Object(
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
