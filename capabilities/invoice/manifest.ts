import { Type } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' })
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' })

export const InvoiceLine = Type.Object(
  {
    description: Type.String({ minLength: 1 }),
    quantity: Type.Optional(Type.Number()),
    unitPrice: Type.Optional(Type.Number()),
    amount: Type.Number(),
  },
  { additionalProperties: false },
)

/** capabilities.md `invoice`, plus `warnings` (see README.md). Fields the document does not state are omitted. */
export const InvoiceResult = Type.Object(
  {
    vendor: Type.Object(
      { name: Type.String({ minLength: 1 }), address: Type.Optional(Type.String()), taxId: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    customer: Type.Optional(Type.String()),
    invoiceNumber: Type.Optional(Type.String()),
    poNumber: Type.Optional(Type.String()),
    issueDate: Type.Optional(Day),
    dueDate: Type.Optional(Day),
    currency: Type.Optional(Currency),
    subtotal: Type.Optional(Type.Number()),
    tax: Type.Optional(Type.Number()),
    total: Type.Optional(Type.Number()),
    paymentTerms: Type.Optional(Type.String()),
    lineItems: Type.Array(InvoiceLine),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'What does not add up or could not be read; checked by code, never silently fixed' }),
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'invoice',
  summary: 'Invoice extraction: vendor, dates, PO refs, tax, totals, line items',
  price: 8,
  async: true,
  ratePerMinute: 60,
  model: 'vision',
  request: DocObject(),
  response: InvoiceResult,
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
      lineItems: [{ description: 'Ergonomic chair', quantity: 4, unitPrice: 249.5, amount: 998 }],
      warnings: [],
    },
  },
  handler,
})
