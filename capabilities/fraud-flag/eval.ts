// Eval cases for /v1/fraud-flag (scripts/eval.ts, devkit/eval-kit.ts).
import manifest from './manifest.ts'
import { between, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'risky',
    // The manifest's published example, scored.
    request: manifest.example!.request,
    checks: { 'high risk': between('riskScore', 0.6, 1) },
  },
  {
    name: 'ordinary',
    request: {
      order: {
        id: 'B-7',
        amount: 42.5,
        currency: 'EUR',
        email: 'anna.berg@web.de',
        billingCountry: 'DE',
        shippingCountry: 'DE',
        ipCountry: 'DE',
        items: [{ sku: 'MUG', quantity: 2 }],
        accountAgeDays: 900,
      },
    },
    checks: { 'low risk': between('riskScore', 0, 0.4) },
  },
  {
    name: 'mismatch-only',
    request: {
      order: {
        id: 'C-3',
        amount: 300,
        currency: 'USD',
        email: 'lee@company.com',
        billingCountry: 'US',
        shippingCountry: 'CA',
        ipCountry: 'US',
        accountAgeDays: 30,
      },
    },
    checks: { 'score in 0..1': between('riskScore', 0, 1) },
  },
]
