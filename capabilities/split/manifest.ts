import { Type, type Static } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

export const SplitDocument = Type.Object(
  {
    docType: Type.String({ minLength: 1, maxLength: 100, description: 'lower-case kind, e.g. invoice, letter, contract, receipt' }),
    title: Type.String({ minLength: 1, maxLength: 1000 }),
    pageStart: Type.Integer({ minimum: 1, description: '1-based, inclusive' }),
    pageEnd: Type.Integer({ minimum: 1, description: '1-based, inclusive; ≥ pageStart and ≤ pageCount' }),
    party: Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]),
    date: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 }), Type.Null()]),
    summary: Type.String({ maxLength: 5000 }),
  },
  { additionalProperties: false },
)

export const SplitResult = Type.Object(
  {
    documents: Type.Array(SplitDocument, { minItems: 1, maxItems: 10_000, description: 'in page order, page ranges never overlap' }),
    documentCount: Type.Integer({ minimum: 1, description: 'documents.length, computed by code' }),
    pageCount: Type.Optional(
      Type.Integer({ minimum: 1, description: 'pages in the bundle (1 for text without form feeds and for images)' }),
    ),
    unassignedPages: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        maxItems: 100_000,
        description: 'pages in no document (blank pages, separator sheets), ascending',
      }),
    ),
    warnings: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 10_000 })),
  },
  { additionalProperties: false },
)
export type SplitResult = Static<typeof SplitResult>

export default defineCapability({
  name: 'split',
  summary: 'Classify and split a multi-document bundle: each document, start, end, summary',
  price: 10,
  async: true,
  ratePerMinute: 60,
  model: 'text',
  request: DocObject(),
  response: SplitResult,
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
