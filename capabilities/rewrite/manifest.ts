import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'rewrite',
  summary: 'Rewrite copy in a brand voice and report what changed',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'text',
  chunking: 'refuse',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'Our platform provides users with the ability to efficiently manage all of their invoices in one single place.',
      voice: 'plain, confident, friendly',
      length: 'shorter',
      preserve: ['invoices'],
    },
    response: {
      rewritten: 'Manage all your invoices in one place.',
      changes: ['Cut filler ("provides users with the ability to")', 'Addressed the reader directly', 'Removed the redundant "single"'],
    },
  },
  handler,
})
