// Eval cases for /v1/parse (scripts/eval.ts, devkit/eval-kit.ts). No docType hint: classifying is measured.
import { invoice1, invoice2, receipt1, receipt2, statement } from '../../devkit/fixtures/documents.ts'
import { contains, inBothForms, pdf, type EvalCase, type GroundingCase } from '../../devkit/eval-kit.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

export const evalCases: EvalCase[] = [
  ...[invoice1, invoice2].flatMap((i) =>
    inBothForms(i, {
      expected: {
        docType: 'invoice',
        party: i.vendor.name,
        documentNumber: i.invoiceNumber,
        date: i.issueDate,
        totalAmount: i.total,
        lineItems: i.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
      },
    }),
  ),
  ...[receipt1, receipt2].flatMap((r) =>
    inBothForms(r, {
      expected: {
        docType: 'receipt',
        party: r.merchant,
        date: r.date,
        totalAmount: r.total,
        lineItems: r.items.map((l) => ({ description: l.description, amount: l.amount })),
      },
    }),
  ),
  ...inBothForms(statement, { expected: { docType: 'bank_statement', party: statement.institution } }),
  {
    name: 'invoice-items-do-not-add-up',
    request: {
      text: 'INVOICE 77-A\nFrom: Bolt Supplies Ltd\nDate: 2 May 2024\nBolts M8 (box)   100.00\nNuts M8 (box)    200.00\nTOTAL DUE        999.00 USD',
    },
    expected: { docType: 'invoice', documentNumber: '77-A', date: '2024-05-02', totalAmount: 999 },
    checks: { 'the sum error is reported': contains('warnings', '300') },
  },
  {
    name: 'scanned-fr-invoice',
    request: { file: pdf('scanned-invoice') },
    expected: { docType: 'invoice', documentNumber: 'F-2024-0312', date: '2024-03-05', totalAmount: 372.42 },
  },
]

/** Issue 29: invoice-1 as text, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { text: invoice1.toText() },
  answer: supported(
    {
      docType: 'invoice',
      party: invoice1.vendor.name,
      documentNumber: invoice1.invoiceNumber,
      date: invoice1.issueDate,
      totalAmount: invoice1.total,
      currency: invoice1.currency,
      lineItems: invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
      fields: [
        { label: 'PO number', value: invoice1.poNumber, confidence: 0.95 },
        { label: 'Tax', value: invoice1.tax, confidence: 0.9 },
      ],
    },
    invoice1.toPages(),
    { lineItems: ['description', 'amount'], fields: ['value'] },
    GROUNDED,
  ),
}
