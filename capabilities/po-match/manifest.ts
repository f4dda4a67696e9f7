import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'po-match',
  summary: 'Invoice vs purchase order vs receipt: matched, partial or mismatched, with sized discrepancies',
  price: 10,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
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
