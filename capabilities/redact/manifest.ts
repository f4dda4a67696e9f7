import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'redact',
  summary: 'Detect and strip names, emails, phones, SSNs, cards and PHI from text',
  price: 3,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: { text: 'Call Jane Doe at 555-123-4567 or jane@example.com.' },
    response: {
      redacted: 'Call [REDACTED:NAME] at [REDACTED:PHONE] or [REDACTED:EMAIL].',
      entities: [
        { type: 'name', text: 'Jane Doe', start: 5, end: 13 },
        { type: 'phone', text: '555-123-4567', start: 17, end: 29 },
        { type: 'email', text: 'jane@example.com', start: 33, end: 49 },
      ],
      entityCount: 3,
    },
  },
  handler,
})
