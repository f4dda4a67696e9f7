// Eval cases for /v1/invoice (scripts/eval.ts, devkit/eval-kit.ts).
import { invoice1, invoice2, invoiceFields } from '../../devkit/fixtures/documents.ts'
import { contains, count, inBothForms, pdf, type EvalCase, type GroundingCase } from '../../devkit/eval-kit.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

// A German layout: day-first dates, decimal commas, EUR, and items that do not add up to the printed total.
const germanInvoice = [
  'Müller Bürobedarf GmbH · Hauptstr. 5 · 10115 Berlin',
  'RECHNUNG Nr. RE-2024-0815',
  'Rechnungsdatum: 14.03.2024        Fällig am: 13.04.2024',
  'Pos. Beschreibung            Menge   Einzelpreis     Betrag',
  '1    Druckerpapier A4 (Karton)   5       250,00 €   1.250,00 €',
  '2    Toner schwarz                1       380,50 €     380,50 €',
  'Zwischensumme                                    1.630,50 €',
  'MwSt. 19 %                                         309,80 €',
  'Gesamtbetrag                                     1.990,30 €',
].join('\n')

export const evalCases: EvalCase[] = [
  ...[invoice1, invoice2].flatMap((i) => inBothForms(i, { expected: invoiceFields(i) })),
  {
    name: 'de-invoice-decimal-commas-wrong-total',
    request: { text: germanInvoice },
    expected: {
      invoiceNumber: 'RE-2024-0815',
      issueDate: '2024-03-14',
      dueDate: '2024-04-13',
      currency: 'EUR',
      subtotal: 1630.5,
      tax: 309.8,
      total: 1990.3,
    },
    checks: {
      'two line items': count('lineItems[]', 2),
      'the wrong total is reported (1,630.50 + 309.80 = 1,940.30)': contains('warnings', 'total'),
    },
  },
  {
    // A scanned page: an image-only PDF (scripts/make-scanned-fixture.ts), French layout, decimal commas.
    name: 'scanned-fr-invoice',
    request: { file: pdf('scanned-invoice') },
    expected: {
      invoiceNumber: 'F-2024-0312',
      issueDate: '2024-03-05',
      dueDate: '2024-04-04',
      currency: 'EUR',
      subtotal: 353,
      tax: 19.42,
      total: 372.42,
      vendor: { name: 'Boulangerie Dupont SARL' },
    },
    checks: {
      'three line items': count('lineItems[]', 3),
      'no sum warning': (r) => !(r.warnings ?? []).some((w: string) => /total|subtotal/i.test(w)),
    },
  },
]

/** Issue 29: invoice-2 as its PDF, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { file: pdf('invoice-2') },
  answer: supported(invoiceFields(invoice2), invoice2.toPages(), { lineItems: ['description', 'amount'] }, GROUNDED),
}
