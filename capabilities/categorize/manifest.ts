import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'categorize',
  summary: 'Categorize up to 100 items against a taxonomy, with per-item confidence',
  price: 3,
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'refuse',
  request: Request,
  response: Result,
  example: {
    request: {
      items: ['Refund for order #1182 not received', 'App crashes when I open settings', 'Package arrived damaged'],
      taxonomy: ['billing', 'technical', 'shipping'],
    },
    response: {
      results: [
        { index: 0, category: 'billing', confidence: 0.92 },
        { index: 1, category: 'technical', confidence: 0.95 },
        { index: 2, category: 'shipping', confidence: 0.88 },
      ],
    },
  },
  check,
  handler,
})
