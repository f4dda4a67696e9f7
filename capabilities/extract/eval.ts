// Eval cases for /v1/extract (scripts/eval.ts, scripts/eval-kit.ts).
import { count, type EvalCase } from '../../scripts/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'invoice-line',
    request: { text: 'Invoice INV-2041 from Acme GmbH, due 2026-03-31.', fields: ['invoiceNumber', 'vendor', 'dueDate', 'poNumber'] },
    checks: { 'one result per field': count('results[]', 4) },
  },
  {
    name: 'day-first-date',
    request: {
      text: 'Lieferschein 4471 vom 03.07.2024, Kunde: Weber KG, Gewicht 12,5 kg',
      fields: ['deliveryNote', 'date', 'customer', 'weightKg'],
    },
    checks: { 'one result per field': count('results[]', 4) },
  },
  {
    name: 'absent-field',
    request: { text: 'Meeting with Lee on Friday about the Q3 budget.', fields: ['person', 'day', 'invoiceNumber'] },
    checks: { 'one result per field': count('results[]', 3) },
  },
]
