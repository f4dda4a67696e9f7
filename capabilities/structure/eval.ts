// Eval cases for /v1/structure (scripts/eval.ts, scripts/eval-kit.ts).
import type { EvalCase } from '../../scripts/eval-kit.ts'

const order = {
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
}
export const evalCases: EvalCase[] = [
  {
    name: 'chairs',
    request: {
      input: 'hi, this is Dana Reyes from Northwind, need 40 chairs delivered by march 3rd 2026, call me 555 0100',
      schema: order,
    },
    expected: { valid: true, data: { name: 'Dana Reyes', company: 'Northwind', quantity: 40, deliverBy: '2026-03-03' } },
  },
  {
    name: 'day-first',
    request: { input: 'Bestellung: 12 Tische für Weber KG, Lieferung bis 05.06.2026. Gruß, Eva Braun', schema: order },
    expected: { valid: true, data: { name: 'Eva Braun', quantity: 12, deliverBy: '2026-06-05' } },
  },
  { name: 'missing-quantity', request: { input: 'Lee here, we want some desks.', schema: order }, expected: { data: { name: 'Lee' } } },
]
