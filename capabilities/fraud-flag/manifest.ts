import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'fraud-flag',
  summary: 'Risk score, signals and suggested checks for an order or transaction',
  price: 6,
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  check,
  response: Result,
  example: {
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
    response: {
      riskScore: 0.86,
      riskLevel: 'high',
      signals: [
        { signal: 'disposable email', weight: 'high', note: 'mailinator.com is a throwaway mailbox.' },
        { signal: 'country mismatch', weight: 'high', note: 'Billing US, shipping NG, IP RO.' },
        { signal: 'new account, high value', weight: 'medium', note: 'Account created today; 12x the typical order.' },
      ],
      recommendedChecks: ['Call the cardholder on the number the issuer holds', 'Require 3-D Secure before capture'],
      recommendation: 'block',
    },
  },
  handler,
})
