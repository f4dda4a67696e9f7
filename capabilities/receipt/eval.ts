// Eval cases for /v1/receipt (scripts/eval.ts, devkit/eval-kit.ts).
import { receipt1, receipt2, receiptFields } from '../../devkit/fixtures/documents.ts'
import { count, inBothForms, type EvalCase, type GroundingCase } from '../../devkit/eval-kit.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

// A UK till receipt: day-first date, pounds, VAT included in the prices.
const ukReceipt = [
  'THE CORNER CAFE',
  '12 High St, York',
  '07/02/2024 13:42',
  'Flat white        3.20',
  'Cheese toastie     5.80',
  'TOTAL GBP          9.00',
  'Paid by card',
  'VAT included @20%: 1.50',
].join('\n')

export const evalCases: EvalCase[] = [
  ...[receipt1, receipt2].flatMap((r) => inBothForms(r, { expected: receiptFields(r) })),
  {
    name: 'uk-receipt-day-first',
    request: { text: ukReceipt },
    expected: { merchant: 'The Corner Cafe', date: '2024-02-07', currency: 'GBP', total: 9 },
    checks: { 'two items': count('items[]', 2) },
  },
]

/** Issue 29: receipt-1 as text, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { text: receipt1.toText() },
  answer: supported(receiptFields(receipt1), receipt1.toPages(), { items: ['description', 'amount'] }, GROUNDED),
}
