import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'review-reply',
  summary: 'Public response to a review, issues to log, escalation flag',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      review: 'Waited 40 minutes for a cold pizza and the server ignored us.',
      rating: 2,
      business: { name: "Luigi's", voice: 'warm, family-run, no corporate speak' },
      resolution: 'Offer a free meal on the next visit.',
    },
    response: {
      reply:
        "We're so sorry about the long wait and the cold pizza: that is not the evening we want anyone to have at Luigi's. Please let us make it right with a meal on us next time; ask for the manager when you come in.",
      sentiment: 'negative',
      issues: ['long wait', 'food served cold', 'inattentive service'],
      escalate: true,
      escalationReasons: ['Rating 2 of 5 with reported issues.'],
    },
  },
  handler,
})
