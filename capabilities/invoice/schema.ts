import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Grounded, Groundings } from '../../core/capability.ts'

/** The single-valued fields that carry evidence (issue 29); currency is a code read from a symbol, not printed as such. */
export const GROUNDED = [
  'vendor.name',
  'vendor.address',
  'vendor.taxId',
  'customer',
  'invoiceNumber',
  'poNumber',
  'issueDate',
  'dueDate',
  'subtotal',
  'tax',
  'total',
  'paymentTerms',
] as const

const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' })
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' })

const InvoiceLine = Type.Object(
  {
    description: Type.String({ minLength: 1 }),
    quantity: Type.Optional(Type.Number()),
    unitPrice: Type.Optional(Type.Number()),
    amount: Type.Number(),
    ...Grounded,
  },
  { additionalProperties: false },
)

/** capabilities.md `invoice`, plus `warnings` (see README.md). Fields the document does not state are omitted. */
export const Result = Type.Object(
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
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'What does not add up or could not be read; checked by code, never silently fixed' }),
    ),
  },
  { additionalProperties: false },
)

export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
