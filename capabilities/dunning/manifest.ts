import { Type } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { Channel, DEFAULT_STEPS, MAX_DAY, handler } from './handler.ts'

export const DunningResult = Type.Object(
  {
    sequence: Type.Array(
      Type.Object(
        {
          day: Type.Integer({ minimum: 0, maximum: MAX_DAY, description: 'days after the call; 0 = today' }),
          // Optional (README): the calendar date of `day`, computed by code from the day of the call (UTC).
          date: Type.Optional(Type.String({ format: 'date' })),
          channel: Channel,
          subject: Type.Optional(Type.String({ maxLength: 200 })),
          message: Type.String({ minLength: 1, maxLength: 5000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10, description: 'exactly `steps` steps, days strictly increasing' },
    ),
    escalationAdvice: Type.String({ minLength: 1, maxLength: 4000 }),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'dunning',
  summary: 'Collections sequence for an overdue invoice',
  price: 8,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      invoice: Type.Object(
        {
          number: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
          currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3 })),
          dueDate: Type.Optional(Type.String({ format: 'date', maxLength: 10 })),
          daysOverdue: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
        },
        { additionalProperties: false },
      ),
      customer: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 200 }),
          history: Type.Optional(Type.String({ maxLength: 10_000 })),
        },
        { additionalProperties: false },
      ),
      tone: Type.Optional(StringEnum(['friendly', 'firm', 'final'] as const)),
      channel: Type.Optional(Channel),
      steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: DEFAULT_STEPS })),
      // Optional (README): who signs the messages, and a payment link every message must carry.
      senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      paymentUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
    },
    { additionalProperties: false },
  ),
  response: DunningResult,
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
