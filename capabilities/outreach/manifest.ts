import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'outreach',
  summary: 'Personalized outreach sequence from an enriched lead',
  price: 6,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      lead: { name: 'Dana Ruiz', title: 'VP Finance', company: 'Northwind Logistics', industry: 'Freight', notes: 'Hiring two AP clerks' },
      product: 'Ledgerly: automated invoice capture and three-way matching for mid-market finance teams.',
      sender: { name: 'Sam Lee', role: 'Account Executive', company: 'Ledgerly' },
      channel: 'email',
      steps: 2,
    },
    response: {
      sequence: [
        {
          day: 1,
          channel: 'email',
          subject: 'Scaling AP at Northwind without two more hires',
          message:
            'Hi Dana, I saw Northwind is hiring two AP clerks. Ledgerly captures invoices and matches them to POs automatically... Worth a 15-minute look? Sam',
        },
        {
          day: 4,
          channel: 'email',
          subject: 'Re: Scaling AP at Northwind',
          message: 'Hi Dana, one number that may help: teams like yours cut invoice handling time by 70%. Open to a short call? Sam',
        },
      ],
      personalizationPoints: ['Northwind is hiring two AP clerks', 'Dana leads finance at a freight company'],
    },
  },
  handler,
})
