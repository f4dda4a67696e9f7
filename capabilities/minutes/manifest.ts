import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'minutes',
  summary: 'Meeting minutes: summary, decisions, action items with owners, open questions',
  price: 6,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      transcript:
        'Dana: We ship the beta on the 14th. Lee, can you write the release notes by Wednesday? Lee: Sure. Dana: Pricing for the beta is still open.',
      attendees: ['Dana Ortiz', 'Lee Chen'],
      meetingDate: '2025-03-10',
    },
    response: {
      title: 'Beta release planning',
      summary: 'The team agreed to ship the beta on March 14; release notes are due Wednesday and beta pricing is undecided.',
      decisions: ['Ship the beta on 2025-03-14.'],
      actionItems: [{ task: 'Write the release notes', owner: 'Lee Chen', due: '2025-03-12' }],
      openQuestions: ['What is the beta pricing?'],
    },
  },
  handler,
})
