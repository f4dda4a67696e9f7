import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'extract',
  summary: 'Extract a caller-defined field set from text, with typed values and confidence',
  price: 4,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: { text: 'Invoice INV-2041 from Acme GmbH, due 2026-03-31.', fields: ['invoiceNumber', 'vendor', 'dueDate', 'poNumber'] },
    response: {
      results: [
        { field: 'invoiceNumber', value: 'INV-2041', confidence: 0.98 },
        { field: 'vendor', value: 'Acme GmbH', confidence: 0.95 },
        { field: 'dueDate', value: '2026-03-31', confidence: 0.93 },
        { field: 'poNumber', value: null, confidence: 0 },
      ],
    },
  },
  handler,
})
