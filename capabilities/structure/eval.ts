// Eval cases for /v1/structure (scripts/eval.ts, devkit/eval-kit.ts).
import type { EvalCase } from '../../devkit/eval-kit.ts'
import manifest from './manifest.ts'

const order = manifest.example!.request.schema
export const evalCases: EvalCase[] = [
  {
    name: 'chairs',
    // The manifest's published example, scored.
    request: manifest.example!.request,
    expected: { valid: true, data: { name: 'Dana Reyes', company: 'Northwind', quantity: 40, deliverBy: '2026-03-03' } },
  },
  {
    name: 'day-first',
    request: { input: 'Bestellung: 12 Tische für Weber KG, Lieferung bis 05.06.2026. Gruß, Eva Braun', schema: order },
    expected: { valid: true, data: { name: 'Eva Braun', quantity: 12, deliverBy: '2026-06-05' } },
  },
  { name: 'missing-quantity', request: { input: 'Lee here, we want some desks.', schema: order }, expected: { data: { name: 'Lee' } } },
]
