import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'receipt',
  summary:
    'Receipt extraction: merchant, items, totals, payment method, expense category; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 6,
  size: { unit: 'page', included: 5, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'vision',
  chunking: 'merge',
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
      items: [
        {
          description: 'Grilled chicken sandwich',
          quantity: 2,
          amount: 25.9,
          evidence: { page: 1, quote: '2 x Grilled chicken sandwich 25.90' },
          grounded: true,
          confidence: 0.95,
        },
      ],
      grounding: {
        merchant: { evidence: { page: 1, quote: 'Cafe Lumen' }, grounded: true, confidence: 0.97 },
        date: { evidence: { page: 1, quote: '2024-06-11 12:47' }, grounded: true, confidence: 0.96 },
        time: { evidence: { page: 1, quote: '2024-06-11 12:47' }, grounded: true, confidence: 0.96 },
        subtotal: { evidence: { page: 1, quote: 'Subtotal 25.90' }, grounded: true, confidence: 0.95 },
        tax: { evidence: { page: 1, quote: 'Tax 2.20' }, grounded: true, confidence: 0.95 },
        total: { evidence: { page: 1, quote: 'TOTAL USD 28.10' }, grounded: true, confidence: 0.97 },
        paymentMethod: { evidence: { page: 1, quote: 'Paid by VISA ending 4242' }, grounded: true, confidence: 0.9 },
      },
      warnings: [],
    },
  },
  handler,
})
