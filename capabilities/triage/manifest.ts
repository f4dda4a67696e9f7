import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'triage',
  summary: 'Ticket priority, category, team, sentiment, SLA risk, suggested first response',
  price: 3,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 300,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      ticket: 'Our whole team has been locked out since this morning and we have a launch in two hours. Please help!',
      categories: ['access', 'billing', 'bug', 'feature request'],
      teams: ['support', 'engineering', 'finance'],
    },
    response: {
      priority: 'urgent',
      category: 'access',
      team: 'support',
      sentiment: 'negative',
      slaRisk: true,
      summary: 'A whole team is locked out hours before a launch.',
      suggestedFirstResponse:
        "I'm sorry you're locked out. I'm looking into your team's access right now and will update you within 15 minutes.",
    },
  },
  check,
  handler,
})
