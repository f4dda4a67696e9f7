import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'moderate',
  summary: 'Allow, review or block text or an image against a caller policy, with categories and excerpts',
  price: 2,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  ratePerMinute: 60,
  model: 'vision',
  chunking: 'map-reduce',
  request: Request,
  check,
  response: Result,
  example: {
    request: { text: 'Buy cheap followers now!!! DM me at spam@example.com', policy: 'No spam, no harassment, no adult content.' },
    response: {
      flagged: true,
      decision: 'block',
      categories: [{ category: 'spam', severity: 'high', excerpt: 'Buy cheap followers now!!!' }],
      rationale: 'Unsolicited promotion of fake followers is spam under the policy.',
    },
  },
  handler,
})
