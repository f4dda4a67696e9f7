// /v1/po-match: the request (invoice, purchase order, optional receipt, tolerance) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const DEFAULT_TOLERANCE_PCT = 2

const Value = Type.Union([Type.Number(), Type.String({ maxLength: 100 }), Type.Null()])
const Severity = StringEnum(['low', 'medium', 'high'] as const, {
  description: 'low: within tolerancePct; high: the invoice asks for more (or another PO/currency); medium: it asks for less',
})

export const Result = Type.Object(
  {
    status: StringEnum(['matched', 'partial', 'mismatched'] as const, {
      description: 'by code from the discrepancies: any high → mismatched; else any medium → partial; else matched',
    }),
    discrepancies: Type.Array(
      Type.Object(
        {
          field: Type.String({ maxLength: 50 }),
          // Optional (README): the line item concerned, what the invoice was compared with, and the relative size.
          item: Type.Optional(Type.String({ maxLength: 300 })),
          against: Type.Optional(StringEnum(['purchaseOrder', 'receipt', 'calculation'] as const)),
          invoice: Value,
          purchaseOrder: Value,
          receipt: Value,
          difference: Type.Optional(Type.Number()),
          differencePct: Type.Optional(Type.Number()),
          severity: Severity,
          note: Type.String({ minLength: 1, maxLength: 1000 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 200 },
    ),
    recommendation: Type.String({ minLength: 1, maxLength: 2000 }),
    // Optional (README): the model's remarks, the tolerance applied, and how many lines code read per document.
    notes: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
    tolerancePct: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    lineCounts: Type.Optional(
      Type.Object(
        {
          invoice: Type.Integer({ minimum: 0 }),
          purchaseOrder: Type.Integer({ minimum: 0 }),
          receipt: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    // Text or JSON text (e.g. the output of /v1/invoice): see README for the forms code reads.
    invoice: Type.String({ minLength: 1, maxLength: 500_000 }),
    purchaseOrder: Type.String({ minLength: 1, maxLength: 500_000 }),
    receipt: Type.Optional(Type.String({ minLength: 1, maxLength: 500_000 })),
    tolerancePct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, default: DEFAULT_TOLERANCE_PCT })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
