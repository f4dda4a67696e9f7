import { Type } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { check, handler, Weight } from './handler.ts'

const Level = StringEnum(['low', 'medium', 'high'] as const, {
  description: 'from riskScore by code: below 0.34 low, 0.34 to below 0.67 medium, 0.67 and above high',
})

export const FraudFlagResult = Type.Object(
  {
    riskScore: Type.Number({ minimum: 0, maximum: 1 }),
    riskLevel: Level,
    signals: Type.Array(
      Type.Object(
        { signal: Type.String({ minLength: 1, maxLength: 200 }), weight: Weight, note: Type.String({ maxLength: 500 }) },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    recommendedChecks: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 }),
    recommendation: StringEnum(['allow', 'review', 'block'] as const, {
      description: 'from riskLevel by code: low allow, medium review, high block',
    }),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'fraud-flag',
  summary: 'Risk score, signals and suggested checks for an order or transaction',
  price: 6,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      // Free-form: whatever the shop or processor knows about the order (C12: at most 200 keys at the top;
      // `check` also bounds its size as JSON).
      order: Type.Object({}, { additionalProperties: true, minProperties: 1, maxProperties: 200 }),
      context: Type.Optional(Type.String({ maxLength: 20_000 })),
    },
    { additionalProperties: false },
  ),
  check,
  response: FraudFlagResult,
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
