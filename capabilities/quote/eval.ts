// Eval cases for /v1/quote (scripts/eval.ts, devkit/eval-kit.ts): totals are code's arithmetic.
import manifest from './manifest.ts'
import { count, type EvalCase } from '../../devkit/eval-kit.ts'
import type { Output } from './schema.ts'

const adds = (r: Output) => Math.abs((r.subtotal ?? 0) + (r.tax ?? 0) - r.total) <= 0.01
export const evalCases: EvalCase[] = [
  {
    name: 'plumbing',
    // The manifest's published example, scored.
    request: manifest.example!.request,
    expected: { currency: 'USD' },
    checks: { 'subtotal + tax = total': adds, 'line items': count('lineItems[]', 1, 20) },
  },
  {
    name: 'painting-eur',
    request: {
      job: 'Paint two bedrooms (walls only), about 60 m² in total.',
      rates: [{ description: 'Painting', unit: 'm²', unitPrice: 12.5 }],
      currency: 'EUR',
      taxRatePct: 19,
    },
    expected: { currency: 'EUR' },
    checks: { 'subtotal + tax = total': adds },
  },
  {
    name: 'no-tax',
    request: { job: 'Two hours of garden clearing.', rates: [{ description: 'Labour', unit: 'hour', unitPrice: 40 }], currency: 'GBP' },
    expected: { subtotal: 80, total: 80 },
    checks: { 'subtotal + tax = total': adds },
  },
]
