import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { MatchResult, RecordSchema } from './schema.ts'

export const MAX_ROWS = 500

export default defineCapability({
  name: 'match',
  summary: 'Match rows across two record sets, with confidence and reasoning',
  price: 8,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      a: Type.Array(RecordSchema, { minItems: 1, maxItems: MAX_ROWS }),
      b: Type.Array(RecordSchema, { minItems: 1, maxItems: MAX_ROWS }),
      keys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
      minConfidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      instructions: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  response: MatchResult,
  example: {
    request: {
      a: [
        { name: 'Acme GmbH', city: 'Berlin' },
        { name: 'Globex Ltd', city: 'London' },
      ],
      b: [
        { company: 'GLOBEX LIMITED', town: 'London' },
        { company: 'ACME Gesellschaft mbH', town: 'Berlin' },
        { company: 'Initech', town: 'Austin' },
      ],
      keys: ['name', 'city'],
    },
    response: {
      matches: [
        { aIndex: 0, bIndex: 1, confidence: 0.93, reason: 'Same company name (GmbH spelled out) and city.' },
        { aIndex: 1, bIndex: 0, confidence: 0.95, reason: 'Ltd = Limited; same city.' },
      ],
      unmatchedA: [],
      unmatchedB: [2],
    },
  },
  handler,
})
