import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'parse',
  summary:
    'Parse an invoice, receipt, EOB, ERA or COI (PDF or image) into structured JSON; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 10,
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
      text: 'Northwind Office Supply LLC\nInvoice NW-2024-0117\nIssue date: 2024-03-04\nChair 998.00\nTotal due: 998.00 USD',
      docType: 'invoice',
    },
    response: {
      docType: 'invoice',
      party: 'Northwind Office Supply LLC',
      documentNumber: 'NW-2024-0117',
      date: '2024-03-04',
      totalAmount: 998,
      currency: 'USD',
      lineItems: [{ description: 'Chair', amount: 998, evidence: { page: 1, quote: 'Chair 998.00' }, grounded: true, confidence: 0.95 }],
      fields: [
        {
          label: 'Invoice number',
          value: 'NW-2024-0117',
          evidence: { page: 1, quote: 'Invoice NW-2024-0117' },
          grounded: true,
          confidence: 0.98,
        },
        {
          label: 'Issue date',
          value: '2024-03-04',
          evidence: { page: 1, quote: 'Issue date: 2024-03-04' },
          grounded: true,
          confidence: 0.97,
        },
        { label: 'Total due', value: 998, evidence: { page: 1, quote: 'Total due: 998.00 USD' }, grounded: true, confidence: 0.96 },
      ],
      grounding: {
        party: { evidence: { page: 1, quote: 'Northwind Office Supply LLC' }, grounded: true, confidence: 0.97 },
        documentNumber: { evidence: { page: 1, quote: 'Invoice NW-2024-0117' }, grounded: true, confidence: 0.98 },
        date: { evidence: { page: 1, quote: 'Issue date: 2024-03-04' }, grounded: true, confidence: 0.97 },
        totalAmount: { evidence: { page: 1, quote: 'Total due: 998.00 USD' }, grounded: true, confidence: 0.96 },
      },
      warnings: [],
    },
  },
  handler,
})
