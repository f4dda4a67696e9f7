import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'extract',
  summary:
    'Extract a caller-defined field set from text, with typed values and confidence; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 4,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: { text: 'Invoice INV-2041 from Acme GmbH, due 2026-03-31.', fields: ['invoiceNumber', 'vendor', 'dueDate', 'poNumber'] },
    response: {
      results: [
        {
          field: 'invoiceNumber',
          value: 'INV-2041',
          evidence: { page: null, quote: 'Invoice INV-2041' },
          grounded: true,
          confidence: 0.98,
        },
        { field: 'vendor', value: 'Acme GmbH', evidence: { page: null, quote: 'from Acme GmbH' }, grounded: true, confidence: 0.95 },
        { field: 'dueDate', value: '2026-03-31', evidence: { page: null, quote: 'due 2026-03-31' }, grounded: true, confidence: 0.93 },
        { field: 'poNumber', value: null, evidence: null, grounded: false, confidence: 0 },
      ],
    },
  },
  handler,
})
