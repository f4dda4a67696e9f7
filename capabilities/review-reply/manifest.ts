import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { handler, Sentiment } from './handler.ts'

export const ReviewReplyResult = Type.Object(
  {
    reply: Type.String({ minLength: 1, maxLength: 4000 }),
    sentiment: {
      ...Sentiment,
      description: 'of the review; with a rating, 4–5 stars are never negative and 1–2 never positive (mixed instead)',
    },
    issues: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 }),
    escalate: Type.Boolean({
      description:
        "true when the model says so, when the rating is 1–2 with issues, or when the review uses legal, safety or health language; code never clears the model's flag",
    }),
    // Optional (README): why code or the model escalated, so a person can act on it.
    escalationReasons: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'review-reply',
  summary: 'Public response to a review, issues to log, escalation flag',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'text',
  request: Type.Object(
    {
      review: Type.String({ minLength: 1, maxLength: 20_000 }),
      rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
      business: Type.Optional(
        Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            voice: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
      ),
      resolution: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  response: ReviewReplyResult,
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
