import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'match',
  summary: 'Match rows across two record sets, with confidence and reasoning',
  price: 8,
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      a: [
        { name: 'Acme GmbH', city: 'Berlin' },
        { name: 'Globex Ltd', city: 'London' },
      ],
      b: [
        { company: 'GLOBEX LIMITED', town: 'London' },
        { company: 'ACME Gesellschaft mbH', town: 'Berlin' },
        { company: 'Initech', town: 'Austin' },
      ],
      keys: ['name', 'city'],
    },
    response: {
      matches: [
        { aIndex: 0, bIndex: 1, confidence: 0.93, reason: 'Same company name (GmbH spelled out) and city.' },
        { aIndex: 1, bIndex: 0, confidence: 0.95, reason: 'Ltd = Limited; same city.' },
      ],
      unmatchedA: [],
      unmatchedB: [2],
    },
  },
  handler,
})
