// Eval cases for /v1/classify (scripts/eval.ts, devkit/eval-kit.ts).
import { within, type EvalCase } from '../../devkit/eval-kit.ts'

const labels = ['billing', 'technical', 'shipping', 'account']
export const evalCases: EvalCase[] = [
  {
    name: 'double-charge',
    request: { text: 'My card was charged twice for the same order.', labels },
    expected: { label: 'billing' },
    checks: { 'label in taxonomy': within('label', labels) },
  },
  {
    name: 'crash',
    request: { text: 'The app crashes every time I open the settings page on Android 14.', labels },
    expected: { label: 'technical' },
    checks: { 'label in taxonomy': within('label', labels) },
  },
  {
    name: 'multi-late-and-refund',
    request: { text: 'The parcel is two weeks late and I also want my shipping fee refunded to my card.', labels, multi: true },
    checks: { 'labels in taxonomy': within('labels[]', labels), 'mentions shipping': within('label', ['shipping', 'billing']) },
  },
]
