import { Type } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { CATEGORIES } from './categories.ts'
import { handler } from './handler.ts'

/** capabilities.md `receipt`, plus `warnings` (see README.md). Fields the receipt does not state are omitted. */
export const ReceiptResult = Type.Object(
  {
    merchant: Type.String({ minLength: 1 }),
    location: Type.Optional(Type.String()),
    date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
    time: Type.Optional(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24-hour' })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' })),
    subtotal: Type.Optional(Type.Number()),
    tax: Type.Optional(Type.Number()),
    tip: Type.Optional(Type.Number()),
    total: Type.Optional(Type.Number()),
    paymentMethod: Type.Optional(Type.String({ description: 'card numbers masked to their last 4 digits' })),
    category: Type.Union(CATEGORIES.map((c) => Type.Literal(c))),
    items: Type.Array(
      Type.Object(
        { description: Type.String({ minLength: 1 }), quantity: Type.Optional(Type.Number()), amount: Type.Number() },
        { additionalProperties: false },
      ),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'What does not add up or could not be read; checked by code, never silently fixed' }),
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'receipt',
  summary: 'Receipt extraction: merchant, items, totals, payment method, expense category',
  price: 6,
  async: true,
  ratePerMinute: 60,
  model: 'vision',
  request: DocObject(),
  response: ReceiptResult,
  example: {
    request: {
      text: 'Cafe Lumen\n2024-06-11 12:47\n2 x Grilled chicken sandwich  25.90\nSubtotal 25.90\nTax 2.20\nTOTAL USD 28.10\nPaid by VISA ending 4242',
    },
    response: {
      merchant: 'Cafe Lumen',
      date: '2024-06-11',
      time: '12:47',
      currency: 'USD',
      subtotal: 25.9,
      tax: 2.2,
      total: 28.1,
      paymentMethod: 'VISA ending 4242',
      category: 'meals',
      items: [{ description: 'Grilled chicken sandwich', quantity: 2, amount: 25.9 }],
      warnings: [],
    },
  },
  handler,
})
