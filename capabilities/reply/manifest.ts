import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'reply',
  summary: 'Draft a reply to a customer thread, with an internal note',
  price: 5,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      thread: 'Customer: My order #4411 arrived broken. This is the second time!',
      context: 'Order #4411 shipped 2025-03-02. Replacement stock available. Policy: free replacement or refund.',
      tone: 'apologetic',
      goal: 'Offer a free replacement or a refund',
      senderName: 'Sam',
    },
    response: {
      reply:
        "Hi,\n\nI'm so sorry your order #4411 arrived broken, and especially that it happened twice. I can send a free replacement today or refund you in full, whichever you prefer. Just reply and let me know.\n\nSam",
      subject: 'Re: Your broken order #4411',
      internalNote: 'Second damaged delivery for this customer: check the packaging for this SKU.',
    },
  },
  handler,
})
