import { Type } from '@sinclair/typebox'

export const ENTITY_TYPES = ['name', 'email', 'phone', 'ssn', 'card', 'address', 'dob', 'medical', 'account'] as const
export type EntityType = (typeof ENTITY_TYPES)[number]
export const EntityTypeSchema = Type.Unsafe<EntityType>({ type: 'string', enum: [...ENTITY_TYPES] })

export const DEFAULT_PLACEHOLDER = '[REDACTED:{TYPE}]'

export const RedactResult = Type.Object(
  {
    redacted: Type.String(),
    entities: Type.Array(
      Type.Object(
        {
          type: EntityTypeSchema,
          text: Type.String({ minLength: 1 }),
          /** Offsets in the original text, in UTF-16 code units (JavaScript string indexes), end exclusive. */
          start: Type.Integer({ minimum: 0 }),
          end: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    entityCount: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)
