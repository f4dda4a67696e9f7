// Eval cases for /v1/extract (scripts/eval.ts, devkit/eval-kit.ts).
import { count, type EvalCase, type GroundingCase } from '../../devkit/eval-kit.ts'

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

const extractText = 'Invoice INV-2041 from Acme GmbH.\fTotal due: 1,250.00 EUR by 2026-03-31.'

/** Issue 29: a two-page text, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { text: extractText, fields: ['invoiceNumber', 'vendor', 'total', 'dueDate'] },
  answer: {
    results: [
      { field: 'invoiceNumber', value: 'INV-2041', quote: 'Invoice INV-2041', page: 1, confidence: 0.95 },
      { field: 'vendor', value: 'Acme GmbH', quote: 'from Acme GmbH.', page: 1, confidence: 0.9 },
      { field: 'total', value: '1250.00', quote: 'Total due: 1,250.00 EUR', page: 2, confidence: 0.9 },
      { field: 'dueDate', value: '2026-03-31', quote: 'by 2026-03-31', page: 2, confidence: 0.9 },
    ],
  },
}
