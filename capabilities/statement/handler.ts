import { Type, type Static } from '@sinclair/typebox'
import {
  answerDocument,
  type CapabilityContext,
  compact,
  contradicted,
  DocumentText,
  MAmount,
  maskDigits,
  money,
  MSupport,
  MSupports,
  MText,
  Reader,
  sum,
  SUPPORT_RULES,
  textOf,
  toAmount,
} from '../../core/capability.ts'
import { GROUNDED, type Input, type Output } from './schema.ts'

type Statement = Output
type Tx = Statement['transactions'][number]

/** What the model is asked for; `transactionCount` and `warnings` are code's. */
const StatementAnswer = Type.Object(
  {
    institution: MText,
    accountHolder: MText,
    accountNumberMasked: MText,
    periodStart: MText,
    periodEnd: MText,
    currency: MText,
    openingBalance: MAmount,
    closingBalance: MAmount,
    support: MSupports(GROUNDED),
    transactions: Type.Array(
      Type.Object(
        { date: MText, description: MText, amount: MAmount, direction: MText, category: MText, balance: MAmount, ...MSupport },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof StatementAnswer>

const SYSTEM = [
  'You extract data from one bank or card account statement. Answer with a JSON object with exactly these fields:',
  'institution (the bank or card issuer), accountHolder, accountNumberMasked (the account or card number with all but',
  'the last 4 digits replaced by *), periodStart, periodEnd, currency, openingBalance, closingBalance, transactions.',
  'transactions: every transaction in statement order, each {date, description, amount, direction, category, balance}:',
  'amount is a positive number; direction is "debit" for money out of the account (withdrawals, purchases, fees) or',
  '"credit" for money in (deposits, refunds, payments received); category is a short spending category when obvious',
  '(e.g. rent, payroll, groceries, utilities, transfer), else null; balance is the running balance printed on that line, else null.',
  'Rules: copy values as the statement states them; never compute, correct or guess a value; do not add balance lines',
  '(opening, closing, carried forward) as transactions. Use null for anything the statement does not state.',
  'Dates as YYYY-MM-DD. Amounts as plain numbers (no currency symbol, no thousands separators).',
  'currency is the ISO 4217 code (USD, EUR, GBP, ...).',
  `support: one entry for each of ${GROUNDED.join(', ')} that has a value. Each transaction carries its own quote (its line), page and confidence.`,
  SUPPORT_RULES,
].join('\n')

export async function handler(input: Input, ctx: CapabilityContext): Promise<Statement> {
  const { answer, evidence } = await answerDocument<Answer>(ctx, input, { system: SYSTEM, schema: StatementAnswer })
  return buildStatement(answer, evidence)
}

const DEBIT = /^(debit|dr|db|withdrawal|withdraw|purchase|charge|fee|out|outgoing|money out|debited)$/
const CREDIT = /^(credit|cr|deposit|refund|in|incoming|money in|credited)$/

function directionOf(value: unknown): 'debit' | 'credit' | null {
  const s = textOf(value)?.toLowerCase().replace(/\.$/, '')
  if (!s) return null
  return DEBIT.test(s) ? 'debit' : CREDIT.test(s) ? 'credit' : null
}

const cents = (n: number) => Math.round(n * 100) / 100

/**
 * Reconciliation: opening + credits − debits = closing, and each running balance = the previous one ± the amount.
 * Checked for both list orders (statements print oldest or newest first) and both account kinds (a card
 * statement's balance is what is owed: debits raise it); the reading with the fewest problems is reported, the
 * model's own reading (money in raises the balance) winning a tie. A reading that reverses the model's
 * directions is itself a warning: it is also what every debit and credit swapped looks like.
 */
function reconcile(txs: Tx[], opening: number | undefined, closing: number | undefined): string[] {
  const readings: Array<{ problems: string[]; owed: boolean }> = []
  for (const owed of [false, true]) {
    const effect = (t: Tx) => ((t.direction === 'credit') !== owed ? t.amount : -t.amount)
    const overall: string[] = []
    if (opening !== undefined && closing !== undefined) {
      const computed = cents(opening + sum(txs.map(effect)))
      if (Math.abs(computed - closing) > 0.01) {
        overall.push(
          `balances: openingBalance ${money(opening)} ${owed ? '+ debits − credits' : '+ credits − debits'} gives ${money(computed)}, the statement's closingBalance is ${money(closing)}.`,
        )
      }
    }
    for (const newestFirst of [false, true]) {
      const order = txs.map((t, i) => [t, i] as const)
      if (newestFirst) order.reverse()
      const problems = [...overall]
      let running: number | null = opening ?? null
      for (const [t, i] of order) {
        if (running !== null) running = cents(running + effect(t))
        if (t.balance === undefined) continue
        if (running !== null && Math.abs(running - t.balance) > 0.01) {
          problems.push(
            `transactions[${i}]: the running balance should be ${money(running)} after this transaction, the statement shows ${money(t.balance)}.`,
          )
        }
        running = t.balance // resynchronise: one wrong line is one warning, not a cascade
      }
      readings.push({ problems, owed })
    }
  }
  const best = readings.reduce((best, r) => (r.problems.length < best.problems.length ? r : best))
  if (!best.owed) return best.problems
  return [
    'The balances reconcile only when debits raise the balance and credits lower it, the reverse of the directions read: either a card statement whose balance is what is owed, or every debit and credit swapped. Check the directions.',
    ...best.problems,
  ]
}

/** The code-side guarantees: amounts ≥ 0 with a direction, count from the array, balances reconciled and reported. */
function buildStatement(a: Answer, text: DocumentText): Statement {
  const r = new Reader()
  const transactions: Tx[] = []
  let previousBalance: number | undefined
  for (const raw of a.transactions ?? []) {
    const description = r.text(raw.description, 1000)
    const signed = toAmount(raw.amount)
    const before = previousBalance
    const stated = toAmount(raw.balance)
    if (stated !== null) previousBalance = stated
    // Left out: reported by what the line says (it has no index in the result).
    if (!description || signed === null) {
      const amount = textOf(raw.amount)
      r.warn(
        description
          ? `A transaction ("${description}") with ${amount ? `${JSON.stringify(amount)}, not an amount` : 'no amount'} was left out.`
          : `A transaction without a description${amount ? ` (amount ${amount})` : ''} was left out.`,
      )
      continue
    }
    const at = `transactions[${transactions.length}]`
    let direction = directionOf(raw.direction)
    const given = textOf(raw.direction) ? JSON.stringify(textOf(raw.direction)) : 'not given'
    if (signed < 0 && direction === 'credit') r.warn(`${at}: a negative amount marked as a credit; kept as a credit.`)
    if (!direction && signed < 0) {
      direction = 'debit'
      r.warn(`${at}: direction ${given}; taken as debit from the negative amount.`)
    }
    if (!direction && before !== undefined && stated !== null && Math.abs(Math.abs(cents(stated - before)) - Math.abs(signed)) <= 0.01) {
      direction = stated >= before ? 'credit' : 'debit'
      r.warn(`${at}: direction ${given}; taken as ${direction} from the running balance.`)
    }
    if (!direction) {
      r.warn(`A transaction ("${description}") whose direction (${given}) is neither debit nor credit was left out.`)
      continue
    }
    transactions.push({
      ...compact({
        date: r.date(raw.date, `${at}.date`),
        description,
        amount: Math.abs(signed),
        direction,
        category: r.text(raw.category, 100),
        balance: r.amount(raw.balance, `${at}.balance`),
      }),
      ...text.ground([raw.description, raw.amount], raw),
    })
  }

  const openingBalance = r.amount(a.openingBalance, 'openingBalance')
  const closingBalance = r.amount(a.closingBalance, 'closingBalance')
  // A balance that does not reconcile contradicts the figure it is checked against: the closing balance, or the line.
  const problems = reconcile(transactions, openingBalance, closingBalance)
  for (const w of problems) r.warn(w)
  for (const w of problems) {
    const line = /^transactions\[(\d+)\]/.exec(w)
    if (line) Object.assign(transactions[Number(line[1])]!, contradicted(transactions[Number(line[1])]!))
  }

  const periodStart = r.date(a.periodStart, 'periodStart')
  const periodEnd = r.date(a.periodEnd, 'periodEnd')
  if (periodStart && periodEnd) {
    if (periodEnd < periodStart) r.warn(`periodEnd ${periodEnd} is before periodStart ${periodStart}.`)
    else {
      transactions.forEach((t, i) => {
        if (t.date && (t.date < periodStart || t.date > periodEnd))
          r.warn(`transactions[${i}]: dated ${t.date}, outside the statement period.`)
      })
    }
  }

  const account = r.text(a.accountNumberMasked, 100)
  const fields = {
    institution: r.text(a.institution, 500),
    accountHolder: r.text(a.accountHolder, 500),
    // Never more than the last 4 digits, whatever the model copied.
    accountNumberMasked: account && maskDigits(account),
    periodStart,
    periodEnd,
    currency: r.currency(a.currency),
    openingBalance,
    closingBalance,
  }
  const grounding = text.fields(
    Object.fromEntries(GROUNDED.map((f) => [f, a[f]])) as Record<(typeof GROUNDED)[number], unknown>,
    a.support,
    fields,
  )
  if (grounding.closingBalance && problems.some((w) => w.startsWith('balances:')))
    grounding.closingBalance = contradicted(grounding.closingBalance)
  return compact({ ...fields, transactions, transactionCount: transactions.length, grounding, warnings: r.warnings })
}
