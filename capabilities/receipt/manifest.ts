import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'receipt',
  summary: 'Receipt extraction: merchant, items, totals, payment method, expense category',
  price: 6,
  async: true,
  ratePerMinute: 60,
  model: 'vision',
  request: Request,
  response: Result,
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
