import { Type } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { DEFAULT_TOLERANCE_PCT, handler } from './handler.ts'

const Value = Type.Union([Type.Number(), Type.String({ maxLength: 100 }), Type.Null()])
const Severity = StringEnum(['low', 'medium', 'high'] as const, {
  description: 'low: within tolerancePct; high: the invoice asks for more (or another PO/currency); medium: it asks for less',
})

export const PoMatchResult = Type.Object(
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

export default defineCapability({
  name: 'po-match',
  summary: 'Invoice vs purchase order vs receipt: matched, partial or mismatched, with sized discrepancies',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      // Text or JSON text (e.g. the output of /v1/invoice): see README for the forms code reads.
      invoice: Type.String({ minLength: 1, maxLength: 500_000 }),
      purchaseOrder: Type.String({ minLength: 1, maxLength: 500_000 }),
      receipt: Type.Optional(Type.String({ minLength: 1, maxLength: 500_000 })),
      tolerancePct: Type.Optional(Type.Number({ minimum: 0, maximum: 100, default: DEFAULT_TOLERANCE_PCT })),
    },
    { additionalProperties: false },
  ),
  response: PoMatchResult,
  example: {
    request: {
      invoice: 'Invoice INV-778\nPO Number: PO-4411\nWidget x 12 @ 2.50 = 30.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 54.00',
      purchaseOrder: 'Purchase order PO-4411\nWidget x 10 @ 2.50 = 25.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 49.00',
      receipt: 'Widget - 10 units\nGadget - 2 units',
    },
    response: {
      status: 'mismatched',
      discrepancies: [
        {
          field: 'quantity',
          item: 'Widget',
          against: 'purchaseOrder',
          invoice: 12,
          purchaseOrder: 10,
          receipt: null,
          difference: 2,
          differencePct: 20,
          severity: 'high',
          note: 'The invoice bills 12 of "Widget"; the purchase order has 10 (+2, +20%).',
        },
        {
          field: 'amount',
          item: 'Widget',
          against: 'purchaseOrder',
          invoice: 30,
          purchaseOrder: 25,
          receipt: null,
          difference: 5,
          differencePct: 20,
          severity: 'high',
          note: 'The line amount of "Widget" is 30.00 on the invoice and 25.00 on the purchase order (+5.00, +20%).',
        },
        {
          field: 'subtotal',
          against: 'purchaseOrder',
          invoice: 54,
          purchaseOrder: 49,
          receipt: null,
          difference: 5,
          differencePct: 10.2,
          severity: 'high',
          note: 'The invoice subtotal is 54.00; the purchase order comes to 49.00 (+5.00, +10.2%).',
        },
        {
          field: 'quantity',
          item: 'Widget',
          against: 'receipt',
          invoice: 12,
          purchaseOrder: 10,
          receipt: 10,
          difference: 2,
          differencePct: 20,
          severity: 'high',
          note: 'The invoice bills 12 of "Widget"; 10 were received (+2, +20%).',
        },
      ],
      recommendation:
        'Hold the invoice and ask the vendor for a credit note for the 2 extra widgets (5.00); the rest matches the PO and the receipt.',
      tolerancePct: 2,
      lineCounts: { invoice: 2, purchaseOrder: 2, receipt: 2 },
    },
  },
  handler,
})
