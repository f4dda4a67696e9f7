import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'split',
  summary: 'Classify and split a multi-document bundle: each document, start, end, summary',
  price: 10,
  size: { unit: 'page', included: 20, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'refuse',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'INVOICE SPD-4410\nSummit Print & Design\nTotal due: 1325.00 USD\f2024-08-26\nDear Summit Print & Design team, please move the poster delivery to September 9.',
    },
    response: {
      documents: [
        {
          docType: 'invoice',
          title: 'Invoice SPD-4410',
          pageStart: 1,
          pageEnd: 1,
          party: 'Summit Print & Design',
          date: null,
          summary: 'Invoice for printing, 1325.00 USD due.',
        },
        {
          docType: 'letter',
          title: 'Request to reschedule poster delivery',
          pageStart: 2,
          pageEnd: 2,
          party: null,
          date: '2024-08-26',
          summary: 'Asks to move the poster delivery to September 9.',
        },
      ],
      documentCount: 2,
      pageCount: 2,
      unassignedPages: [],
      warnings: [],
    },
  },
  handler,
})
