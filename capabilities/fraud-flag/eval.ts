// Eval cases for /v1/fraud-flag (scripts/eval.ts, scripts/eval-kit.ts).
import { between, type EvalCase } from '../../scripts/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'risky',
    request: {
      order: {
        id: 'A-1042',
        amount: 1899,
        currency: 'USD',
        email: 'jx82k1@mailinator.com',
        billingCountry: 'US',
        shippingCountry: 'NG',
        ipCountry: 'RO',
        items: [{ sku: 'IPHONE-15-PRO', quantity: 3 }],
        accountAgeDays: 0,
      },
      context: 'Electronics store; typical order is $150.',
    },
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
