import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'structure',
  summary: 'Shape messy input to a caller-supplied JSON schema; validates, retries once on failure, returns a `valid` flag',
  price: 6,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'refuse',
  request: Request,
  check,
  response: Result,
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
