// Eval fixtures for /v1/tables (scripts/eval.ts): known tables from devkit/fixtures/documents.ts.
import { pdf } from '../../devkit/eval-kit.ts'
import { invoice1, statement } from '../../devkit/fixtures/documents.ts'

const file = (name: string) => ({ file: pdf(name) })
const money = (n: number) => n.toFixed(2)

const statementTable = {
  page: 1,
  headers: ['Date', 'Description', 'Debit', 'Credit', 'Balance'],
  rows: statement.transactions.map((x) => [
    x.date,
    x.description,
    x.direction === 'debit' ? money(x.amount) : '',
    x.direction === 'credit' ? money(x.amount) : '',
    money(x.balance),
  ]),
}
const invoiceTable = {
  page: 1,
  headers: ['Description', 'Qty', `Unit price (${invoice1.currency})`, `Amount (${invoice1.currency})`],
  rows: invoice1.lineItems.map((l) => [l.description, String(l.quantity), money(l.unitPrice), money(l.amount)]),
}

export const evalCases = [
  { name: 'tables-statement-pdf', request: file('statement'), expected: { tableCount: 1, pageCount: 1, tables: [statementTable] } },
  { name: 'tables-invoice-pdf', request: file('invoice-1'), expected: { tableCount: 1, pageCount: 1, tables: [invoiceTable] } },
  {
    name: 'tables-text-decimal-commas',
    request: { text: 'Artikel | Menge | Preis\nSchrauben | 100 | 4,50\nMuttern | 200 | 3,20' },
    expected: {
      tableCount: 1,
      tables: [
        {
          headers: ['Artikel', 'Menge', 'Preis'],
          rows: [
            ['Schrauben', '100', '4,50'],
            ['Muttern', '200', '3,20'],
          ],
        },
      ],
    },
  },
]
