import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'dunning',
  summary: 'Collections sequence for an overdue invoice',
  price: 8,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      invoice: { number: 'INV-2291', amount: 1250, currency: 'USD', dueDate: '2026-03-01', daysOverdue: 14 },
      customer: { name: 'Acme Corp', history: 'Usually pays within a week of the due date.' },
      tone: 'firm',
      channel: 'email',
      steps: 2,
    },
    response: {
      sequence: [
        {
          day: 0,
          date: '2026-03-15',
          channel: 'email',
          subject: 'Invoice INV-2291 is 14 days overdue',
          message:
            'Hello Acme team, invoice INV-2291 for USD 1,250.00 was due on 2026-03-01 and is still open. Could you let us know when payment will be made? Thank you, the accounts team',
        },
        {
          day: 7,
          date: '2026-03-22',
          channel: 'email',
          subject: 'Second notice: INV-2291, USD 1,250.00',
          message:
            'Hello Acme team, we have not yet received payment of USD 1,250.00 for invoice INV-2291. Please settle it this week or reply if something is holding it up. The accounts team',
        },
      ],
      escalationAdvice: 'If unpaid by day 14, call the accounts payable contact and pause further orders until the balance is settled.',
    },
  },
  handler,
})
