import { Type, type Static } from '@sinclair/typebox'

const MAX_CONTENT = 20_000
export const MAX_METADATA_BYTES = 16 * 1024

// Flat metadata: scalars and short lists of scalars, so every value has a bound (C12) and `filter` can match it.
const Scalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()])
const MetaValue = Type.Union([
  Scalar,
  Type.Array(Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean()]), { maxItems: 32 }),
])
const metadataOf = (maxProperties: number, description: string) =>
  Type.Object(
    {},
    { additionalProperties: MetaValue, maxProperties, propertyNames: { type: 'string', minLength: 1, maxLength: 64 }, description },
  )

const Metadata = metadataOf(32, `at most 32 keys, ${MAX_METADATA_BYTES} bytes as JSON`)

export const Result = Type.Object(
  {
    op: Type.Union([Type.Literal('store'), Type.Literal('search'), Type.Literal('forget')]),
    namespace: Type.String(),
    id: Type.Optional(Type.String({ format: 'uuid', description: 'store: the new memory; forget: the id asked for' })),
    results: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ format: 'uuid' }),
            content: Type.String(),
            score: Type.Number({ minimum: 0, maximum: 1 }),
            metadata: Type.Object({}, { additionalProperties: true }),
            createdAt: Type.String({ format: 'date-time' }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    ranking: Type.Optional(
      Type.Union([Type.Literal('embedding'), Type.Literal('fulltext')], { description: 'search: how results were ranked' }),
    ),
    deleted: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
)

// Which fields belong to which op: a field of another op is a 400, not silently ignored.
export const only = (op: string, required: string[], forbidden: string[]) => ({
  if: { type: 'object', properties: { op: { const: op } }, required: ['op'] },
  then: { type: 'object', required, properties: Object.fromEntries(forbidden.map((f) => [f, false])) },
})

export const Request = Type.Object(
  {
    op: Type.Union([Type.Literal('store'), Type.Literal('search'), Type.Literal('forget')]),
    namespace: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9._:-]{1,64}$', default: 'default' })),
    // store
    content: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CONTENT, pattern: '\\S' })),
    metadata: Type.Optional(Metadata),
    // search
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    filter: Type.Optional(metadataOf(16, 'only memories whose metadata contains these key/values (JSON containment)')),
    minScore: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0 })),
    // forget
    id: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  },
  {
    additionalProperties: false,
    allOf: [
      only('store', ['content'], ['query', 'limit', 'filter', 'minScore', 'id']),
      only('search', ['query'], ['content', 'metadata', 'id']),
      only('forget', [], ['content', 'metadata', 'query', 'limit', 'filter', 'minScore']),
    ],
  },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
