import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { StructureResult } from './schema.ts'

export default defineCapability({
  name: 'structure',
  summary: 'Shape messy input to a caller-supplied JSON schema; validates, retries once on failure, returns a `valid` flag',
  price: 6,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      input: Type.String({ minLength: 1, maxLength: 500_000 }),
      // The schema's own size and depth are checked by `check` (stage 4, so dry runs see it), and it is compiled, strictly, before any model call.
      schema: Type.Object(
        {},
        {
          maxProperties: 100,
          description:
            'A JSON Schema: draft-07 by default, 2019-09 or 2020-12 via $schema; at most 100,000 characters of JSON and 32 levels deep; ' +
            'unknown keywords and formats are errors; $ref only within the schema. A schema that does not compile is 400 invalid_request.',
        },
      ),
      instructions: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  check,
  response: StructureResult,
  example: {
    request: {
      input: 'hi, this is Dana Reyes from Northwind, need 40 chairs delivered by march 3rd 2026, call me 555 0100',
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          company: { type: 'string' },
          quantity: { type: 'integer', minimum: 1 },
          item: { type: 'string' },
          deliverBy: { type: 'string', format: 'date' },
        },
        required: ['name', 'quantity', 'item'],
        additionalProperties: false,
      },
    },
    response: {
      data: { name: 'Dana Reyes', company: 'Northwind', quantity: 40, item: 'chairs', deliverBy: '2026-03-03' },
      valid: true,
      notes: ['The phone number has no field in the schema and was left out.'],
    },
  },
  handler,
})
