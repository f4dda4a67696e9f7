import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'

export const MAX_CONTENT = 20_000
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

export const MemoryResult = Type.Object(
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
const only = (op: string, required: string[], forbidden: string[]) => ({
  if: { type: 'object', properties: { op: { const: op } }, required: ['op'] },
  then: { type: 'object', required, properties: Object.fromEntries(forbidden.map((f) => [f, false])) },
})

export default defineCapability({
  name: 'memory',
  summary: "Store, search and forget agent memories in the caller's namespace (per operation)",
  price: 2,
  async: false,
  ratePerMinute: 60,
  // Runs without a model: full-text ranking; an embedding model, when configured, is used for similarity.
  model: null,
  request: Type.Object(
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
  ),
  check,
  response: MemoryResult,
  example: {
    request: { op: 'search', namespace: 'user-42', query: 'preferred drink', limit: 3 },
    response: {
      op: 'search',
      namespace: 'user-42',
      results: [
        {
          id: '3f1c2a9e-8b7d-4c1e-9f0a-2b3c4d5e6f70',
          content: 'Prefers oat milk flat whites, no sugar.',
          score: 0.82,
          metadata: { source: 'chat' },
          createdAt: '2026-08-20T09:15:00.000Z',
        },
      ],
      ranking: 'embedding',
    },
  },
  handler,
})
