import { Type } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' })

export const Transaction = Type.Object(
  {
    date: Type.Optional(Day),
    description: Type.String({ minLength: 1 }),
    amount: Type.Number({ minimum: 0, description: 'always ≥ 0; the sign is in `direction`' }),
    direction: Type.Union([Type.Literal('debit'), Type.Literal('credit')], {
      description: 'debit: money out of the account; credit: money in',
    }),
    category: Type.Optional(Type.String()),
    balance: Type.Optional(Type.Number({ description: 'the running balance the statement prints after this transaction' })),
  },
  { additionalProperties: false },
)

/** capabilities.md `statement`, plus `warnings` (see README.md). Fields the statement does not state are omitted. */
export const StatementResult = Type.Object(
  {
    institution: Type.Optional(Type.String()),
    accountHolder: Type.Optional(Type.String()),
    accountNumberMasked: Type.Optional(Type.String({ description: 'at most the last 4 digits visible' })),
    periodStart: Type.Optional(Day),
    periodEnd: Type.Optional(Day),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' })),
    openingBalance: Type.Optional(Type.Number()),
    closingBalance: Type.Optional(Type.Number()),
    transactions: Type.Array(Transaction),
    transactionCount: Type.Integer({ minimum: 0, description: 'computed from `transactions`' }),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Balances that do not reconcile, values that could not be read; checked by code, never silently fixed',
      }),
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'statement',
  summary: 'Bank or card statement: account, period, balances, normalized transactions',
  price: 12,
  async: true,
  ratePerMinute: 60,
  model: 'vision',
  request: DocObject(),
  response: StatementResult,
  example: {
    request: {
      text: 'First Harbor Bank\nAccount ****6621, 2024-04-01 to 2024-04-30\nOpening balance 2450.00\n2024-04-02 Rent payment | 1200.00 | | 1250.00\n2024-04-05 Payroll deposit | | 3150.75 | 4400.75\nClosing balance 4400.75',
    },
    response: {
      institution: 'First Harbor Bank',
      accountNumberMasked: '****6621',
      periodStart: '2024-04-01',
      periodEnd: '2024-04-30',
      openingBalance: 2450,
      closingBalance: 4400.75,
      transactions: [
        { date: '2024-04-02', description: 'Rent payment', amount: 1200, direction: 'debit', balance: 1250 },
        { date: '2024-04-05', description: 'Payroll deposit', amount: 3150.75, direction: 'credit', balance: 4400.75 },
      ],
      transactionCount: 2,
      warnings: [],
    },
  },
  handler,
})
