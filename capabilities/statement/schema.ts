import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Grounded, Groundings } from '../../core/capability.ts'

/** The single-valued fields that carry evidence (issue 29); the masked account number and the currency are not printed as such. */
export const GROUNDED = ['institution', 'accountHolder', 'periodStart', 'periodEnd', 'openingBalance', 'closingBalance'] as const

const Day = Type.String({ format: 'date', description: 'YYYY-MM-DD' })

const Transaction = Type.Object(
  {
    date: Type.Optional(Day),
    description: Type.String({ minLength: 1 }),
    amount: Type.Number({ minimum: 0, description: 'always ≥ 0; the sign is in `direction`' }),
    direction: Type.Union([Type.Literal('debit'), Type.Literal('credit')], {
      description: 'debit: money out of the account; credit: money in',
    }),
    category: Type.Optional(Type.String()),
    balance: Type.Optional(Type.Number({ description: 'the running balance the statement prints after this transaction' })),
    ...Grounded,
  },
  { additionalProperties: false },
)

/** capabilities.md `statement`, plus `warnings` (see README.md). Fields the statement does not state are omitted. */
export const Result = Type.Object(
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
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Balances that do not reconcile, values that could not be read; checked by code, never silently fixed',
      }),
    ),
  },
  { additionalProperties: false },
)

export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
