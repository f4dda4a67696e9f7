import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const ENTITY_TYPES = ['name', 'email', 'phone', 'ssn', 'card', 'address', 'dob', 'medical', 'account'] as const
export type EntityType = (typeof ENTITY_TYPES)[number]
export const EntityTypeSchema = StringEnum<EntityType>(ENTITY_TYPES)

export const DEFAULT_PLACEHOLDER = '[REDACTED:{TYPE}]'

export const Result = Type.Object(
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

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 500_000 }),
    types: Type.Optional(Type.Array(EntityTypeSchema, { minItems: 1, maxItems: ENTITY_TYPES.length, uniqueItems: true })),
    placeholder: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Replaces each entity; "{type}" and "{TYPE}" become its type. Default "[REDACTED:{TYPE}]".',
      }),
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
