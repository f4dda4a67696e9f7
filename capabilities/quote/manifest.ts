import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'quote',
  summary: 'Itemized quote from a job description and rates',
  price: 8,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      job: 'Replace a kitchen mixer tap and fix a dripping bathroom tap.',
      rates: [
        { description: 'Labour', unit: 'hour', unitPrice: 85 },
        { description: 'Call-out', unitPrice: 60 },
      ],
      currency: 'USD',
      taxRatePct: 8,
    },
    response: {
      lineItems: [
        { description: 'Call-out', quantity: 1, unitPrice: 60, amount: 60 },
        { description: 'Labour: replace mixer tap, reseat bathroom tap', quantity: 2, unitPrice: 85, amount: 170 },
        { description: 'Mixer tap (mid-range, supplied)', amount: 140 },
      ],
      subtotal: 370,
      tax: 29.6,
      total: 399.6,
      currency: 'USD',
      assumptions: ['Standard fittings; no pipework changes', 'Customer has not bought the tap'],
      scopeNotes: 'Includes removal of the old tap. Excludes tiling or cabinet repairs.',
    },
  },
  handler,
})
