// Eval cases for /v1/po-match (scripts/eval.ts, devkit/eval-kit.ts).
import { count, type EvalCase } from '../../devkit/eval-kit.ts'

const po = 'Purchase order PO-4411\nWidget x 10 @ 2.50 = 25.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 49.00'
export const evalCases: EvalCase[] = [
  {
    name: 'over-billed-quantity',
    request: {
      invoice: 'Invoice INV-778\nPO Number: PO-4411\nWidget x 12 @ 2.50 = 30.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 54.00',
      purchaseOrder: po,
      receipt: 'Widget - 10 units\nGadget - 2 units',
    },
    expected: { status: 'mismatch' },
    checks: { 'a discrepancy': count('discrepancies[]', 1, 10) },
  },
  {
    name: 'clean-match',
    request: {
      invoice: 'Invoice INV-779\nPO Number: PO-4411\nWidget x 10 @ 2.50 = 25.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 49.00',
      purchaseOrder: po,
      receipt: 'Widget - 10 units\nGadget - 2 units',
    },
    expected: { status: 'match' },
    checks: { 'no discrepancies': count('discrepancies[]', 0) },
  },
  {
    name: 'price-change-decimal-commas',
    request: {
      invoice: 'Rechnung 55\nBestellung PO-4411\nWidget 10 x 2,75 = 27,50\nGadget 2 x 12,00 = 24,00\nSumme: 51,50',
      purchaseOrder: po,
    },
    expected: { status: 'mismatch' },
  },
]
