import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'invoice',
  summary:
    'Invoice extraction: vendor, dates, PO refs, tax, totals, line items; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 8,
  size: { unit: 'page', included: 10, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'vision',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'Northwind Office Supply LLC\nInvoice NW-2024-0117, 2024-03-04\nErgonomic chair | 4 | 249.50 | 998.00\nSubtotal 998.00\nTax 79.84\nTotal 1077.84 USD',
    },
    response: {
      vendor: { name: 'Northwind Office Supply LLC' },
      invoiceNumber: 'NW-2024-0117',
      issueDate: '2024-03-04',
      currency: 'USD',
      subtotal: 998,
      tax: 79.84,
      total: 1077.84,
      lineItems: [
        {
          description: 'Ergonomic chair',
          quantity: 4,
          unitPrice: 249.5,
          amount: 998,
          evidence: { page: 1, quote: 'Ergonomic chair | 4 | 249.50 | 998.00' },
          grounded: true,
          confidence: 0.95,
        },
      ],
      grounding: {
        'vendor.name': { evidence: { page: 1, quote: 'Northwind Office Supply LLC' }, grounded: true, confidence: 0.97 },
        invoiceNumber: { evidence: { page: 1, quote: 'Invoice NW-2024-0117' }, grounded: true, confidence: 0.98 },
        issueDate: { evidence: { page: 1, quote: '2024-03-04' }, grounded: true, confidence: 0.9 },
        subtotal: { evidence: { page: 1, quote: 'Subtotal 998.00' }, grounded: true, confidence: 0.96 },
        tax: { evidence: { page: 1, quote: 'Tax 79.84' }, grounded: true, confidence: 0.96 },
        total: { evidence: { page: 1, quote: 'Total 1077.84 USD' }, grounded: true, confidence: 0.97 },
      },
      warnings: [],
    },
  },
  handler,
})
