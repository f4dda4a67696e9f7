import { Type, type Static } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const Level = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])

export const Change = Type.Object(
  {
    section: Type.String({ minLength: 1, maxLength: 1000 }),
    change: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('modified')]),
    before: Type.Union([Type.String({ maxLength: 50_000 }), Type.Null()], { description: 'text of a; null when the change is "added"' }),
    after: Type.Union([Type.String({ maxLength: 50_000 }), Type.Null()], { description: 'text of b; null when the change is "removed"' }),
    materiality: Level,
    note: Type.String({ maxLength: 5000 }),
  },
  { additionalProperties: false },
)

export const CompareResult = Type.Object(
  {
    changes: Type.Array(Change, { maxItems: 5000 }),
    changeCount: Type.Integer({ minimum: 0, description: 'changes.length, computed by code' }),
    summary: Type.String({ maxLength: 10_000 }),
    riskNotes: Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 1000 }),
    warnings: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), {
        maxItems: 10_000,
        description: "what code found wrong with the model's changes (e.g. a quote not found in the document)",
      }),
    ),
  },
  { additionalProperties: false },
)
export type CompareResult = Static<typeof CompareResult>

export const CompareRequest = Type.Object(
  {
    a: DocObject({}),
    b: DocObject({}),
  },
  { additionalProperties: false, description: 'a: the earlier version, b: the later version; each exactly one of file, fileUrl, text' },
)

export default defineCapability({
  name: 'compare',
  summary: 'Compare two versions of a document: material changes, meaning, risk',
  price: 15,
  async: true,
  ratePerMinute: 60,
  model: 'text',
  request: CompareRequest,
  response: CompareResult,
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
