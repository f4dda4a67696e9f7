// Eval cases for /v1/statement (scripts/eval.ts, devkit/eval-kit.ts).
import { statement, statementFields } from '../../devkit/fixtures/documents.ts'
import { contains, count, inBothForms, pdf, within, type EvalCase, type GroundingCase } from '../../devkit/eval-kit.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

// A Dutch-style statement: day-first dates, decimal commas, EUR, signed amounts without a direction column.
const euStatement = [
  'Rabo Test Bank · Rekeningafschrift',
  'Rekeninghouder: J. de Vries   Rekening: NL91 TEST 0417 1643 00',
  'Periode: 01-05-2024 t/m 31-05-2024   Valuta: EUR',
  'Beginsaldo: 1.000,00',
  '03-05-2024  Albert Heijn 1021          -45,60    954,40',
  '10-05-2024  Salaris Acme BV          +2.500,00  3.454,40',
  '15-05-2024  Huur mei                   -950,00  2.504,40',
  'Eindsaldo: 2.504,40',
].join('\n')

// The known statement with a misprinted running balance: the answer must report it.
const misprinted = statement.toText().replace('4,220.23', '4,230.23')

export const evalCases: EvalCase[] = [
  ...inBothForms(statement, { expected: statementFields() }),
  {
    name: 'eu-statement-decimal-commas',
    request: { text: euStatement },
    expected: {
      periodStart: '2024-05-01',
      periodEnd: '2024-05-31',
      currency: 'EUR',
      openingBalance: 1000,
      closingBalance: 2504.4,
      transactionCount: 3,
    },
    checks: {
      'directions from the signs': within('transactions[].direction', ['debit', 'credit']),
      'three transactions': count('transactions[]', 3),
    },
  },
  {
    name: 'statement-misprinted-balance',
    request: { text: misprinted },
    checks: { 'the misprinted balance is reported': contains('warnings', 'transactions[3]') },
  },
]

/** Issue 29: the statement as its PDF, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { file: pdf('statement') },
  answer: supported(
    { ...statementFields(), transactionCount: undefined, transactions: statement.transactions.map((x) => ({ ...x, category: null })) },
    statement.toPages(),
    { transactions: ['description', 'amount'] },
    GROUNDED,
  ),
}
