import { Type } from '@sinclair/typebox'
import { DocObject, EXPLICIT_NULL, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

/** Spec 2.6, plus the optional `currency` and `warnings` (see README.md). Fields not in the document are omitted. */
export const ParseResult = Type.Object(
  {
    docType: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'lower_snake_case: invoice, receipt, eob, era, coi, bank_statement, ...',
    }),
    party: Type.Optional(Type.String({ description: 'Primary party (vendor, payer or carrier)' })),
    documentNumber: Type.Optional(Type.String()),
    date: Type.Optional(Type.String({ format: 'date', description: 'Primary date, YYYY-MM-DD' })),
    totalAmount: Type.Optional(Type.Number()),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of totalAmount' })),
    lineItems: Type.Optional(
      Type.Array(Type.Object({ description: Type.String({ minLength: 1 }), amount: Type.Number() }, { additionalProperties: false })),
    ),
    fields: Type.Array(
      Type.Object(
        {
          label: Type.String({ minLength: 1 }),
          value: Type.Union([Type.String(), Type.Number(), Type.Null()], {
            [EXPLICIT_NULL]: true,
            description: 'dates as YYYY-MM-DD, amounts as numbers; null is an answer (the field has no value), never left out',
          }),
          confidence: Type.Number({ minimum: 0, maximum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'Values present in the answer that could not be read; never silently dropped' }),
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'parse',
  summary: 'Parse an invoice, receipt, EOB, ERA or COI (PDF or image) into structured JSON',
  price: 10,
  async: true,
  ratePerMinute: 60,
  model: 'vision',
  request: DocObject({
    docType: Type.Optional(Type.String({ maxLength: 64, description: 'A hint (e.g. "invoice", "eob"); the document decides' })),
  }),
  response: ParseResult,
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
      lineItems: [{ description: 'Chair', amount: 998 }],
      fields: [
        { label: 'Invoice number', value: 'NW-2024-0117', confidence: 0.98 },
        { label: 'Issue date', value: '2024-03-04', confidence: 0.97 },
        { label: 'Total due', value: 998, confidence: 0.96 },
      ],
      warnings: [],
    },
  },
  handler,
})
