import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'compare',
  summary: 'Compare two versions of a document: material changes, meaning, risk',
  price: 15,
  size: { unit: 'page', included: 30, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'refuse',
  request: Request,
  response: Result,
  example: {
    request: {
      a: { text: '3. Fees\nInvoices are payable within 30 days of receipt.' },
      b: { text: '3. Fees\nInvoices are payable within 60 days of receipt.' },
    },
    response: {
      changes: [
        {
          section: '3. Fees',
          change: 'modified',
          before: 'payable within 30 days',
          after: 'payable within 60 days',
          materiality: 'high',
          note: 'The payment term doubles, delaying cash receipt by a month.',
        },
      ],
      changeCount: 1,
      summary: 'The payment term grows from 30 to 60 days.',
      riskNotes: ['Longer payment terms increase exposure to late or non-payment.'],
      warnings: [],
    },
  },
  handler,
})
