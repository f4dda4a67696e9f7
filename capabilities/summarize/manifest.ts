import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'summarize',
  summary: 'Summary, key points and action items from a transcript, thread or report',
  price: 3,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'Ana: the March invoice run failed again. Ben: I will patch the retry logic by Friday. Ana: good, then we re-run.',
      length: 'brief',
    },
    response: {
      summary: 'The March invoice run failed; Ben will fix the retry logic by Friday before a re-run.',
      keyPoints: ['The March invoice run failed again.', 'The retry logic needs a patch.'],
      actionItems: [
        { task: 'Patch the invoice-run retry logic by Friday', owner: 'Ben' },
        { task: 'Re-run the March invoices after the fix', owner: 'Ana' },
      ],
    },
  },
  handler,
})
