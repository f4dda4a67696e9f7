// Issue 29 in the kernel: quotes looked up in the document's own text page by page, values derived from the
// quote by code (amounts, dates, text in their printed forms), and the confidence rule.
import t from 'tap'
import { confidenceOf, contradicted, DocumentText } from '../../core/evidence/ground.ts'
import { datesIn, derivable, numbersIn } from '../../core/evidence/derive.ts'

const pages = [
  'ACME GmbH\nRechnung Nr. RE-2024-0815\nRechnungsdatum: 14.03.2024',
  'Pos. 1  Druckerpapier A4   1.250,00 €\nGesamtbetrag   1.234,50 €',
  'Page three: “Payment terms” — Net\u00a030 days.\nTotal\u00adamount: $2,535.24   Due: March 4th, 2024',
]
const doc = new DocumentText(pages)

t.test('a quote is found after whitespace, Unicode and case folding; the page is where code found it', async (t) => {
  t.same(doc.find('gesamtbetrag 1.234,50 €'), { page: 2, quote: 'Gesamtbetrag 1.234,50 €' }, "the document's own text comes back")
  t.same(
    doc.find('"payment terms" - net 30 days.', 1),
    { page: 3, quote: '“Payment terms” — Net 30 days.' },
    'quotes, dashes, no-break spaces',
  )
  t.equal(doc.find('Payment   terms"-Net 30', 2)?.page, 3, 'the model claimed page 2; the quote is on page 3')
  t.equal(doc.find('Totalamount: $2,535.24')?.page, 3, 'a soft hyphen is invisible')
  t.equal(doc.find('Rechnung Nr. RE-2024-0816'), null, 'a quote not in the document is no evidence')
  t.equal(doc.find('   '), null, 'a blank quote is none')
  const twice = new DocumentText(['Total 10.00', 'Total 10.00'])
  t.equal(twice.find('Total 10.00', 2)?.page, 2, 'on several pages: the claimed page when the quote is on it')
  t.equal(twice.find('Total 10.00', 9)?.page, 1, 'else the first page that has it')
  t.equal(DocumentText.ofText('no pages here').find('pages')?.page, null, 'plain text has no page numbers')
  t.equal(DocumentText.ofText('one\fpage two').find('page two')?.page, 2, 'form feeds make pages')
})

t.test('values are derived from the quote in their printed forms', async (t) => {
  t.ok(numbersIn('1.234,50 €').includes(1234.5), '"1.234,50 €" reads as 1234.5')
  t.ok(derivable(1234.5, 'Gesamtbetrag 1.234,50 €'))
  t.ok(derivable('1234.50', 'Gesamtbetrag 1.234,50 €'), 'a string amount too')
  t.ok(derivable(2535.24, 'Total: $2,535.24'))
  t.ok(derivable(-45, 'Refund (45.00)'), 'sign aside')
  t.ok(derivable(1000000, 'limit USD 1 000 000'))
  t.notOk(derivable(1234.6, 'Gesamtbetrag 1.234,50 €'), 'another number is not derivable')
  t.ok(datesIn('Rechnungsdatum: 14.03.2024').includes('2024-03-14'))
  t.ok(derivable('2024-03-04', 'Due: March 4th, 2024'))
  t.ok(derivable('2024-04-03', 'Date 03/04/2024') && derivable('2024-03-04', 'Date 03/04/2024'), 'a slashed date supports both readings')
  t.notOk(derivable('2024-03-05', 'Due: March 4th, 2024'))
  t.ok(derivable('Northwind Office Supply, LLC', 'NORTHWIND OFFICE SUPPLY LLC, 1 Main St'), 'text: letters and digits compared')
  t.ok(derivable('Feb 2020', 'Engineer, Feb 2020 – present'))
  t.notOk(derivable('Globex Corp', 'NORTHWIND OFFICE SUPPLY LLC'))
  t.notOk(derivable('', 'anything'))
})

t.test('grounding: evidence only when the quote is found and the value derivable from it', async (t) => {
  t.same(doc.ground([1234.5], { quote: 'Gesamtbetrag 1.234,50', page: 7, confidence: 0.9 }), {
    evidence: { page: 2, quote: 'Gesamtbetrag 1.234,50' },
    grounded: true,
    confidence: 0.9,
  })
  t.same(
    doc.ground([999], { quote: 'Gesamtbetrag 1.234,50', page: 2, confidence: 0.99 }),
    {
      evidence: null,
      grounded: false,
      confidence: 0.5,
    },
    'a real quote that does not state the value: no evidence, capped',
  )
  t.same(doc.ground(['Globex'], { quote: 'Globex Corporation', page: 1, confidence: 0.99 }), {
    evidence: null,
    grounded: false,
    confidence: 0.5,
  })
  t.same(doc.ground(['x'], undefined), { evidence: null, grounded: false, confidence: 0 }, 'no support at all')
  const supports = [{ field: 'total', quote: 'Gesamtbetrag 1.234,50 €', page: 1, confidence: 0.8 }]
  t.same(
    doc.fields({ total: 1234.5, number: 'RE-1', date: null }, supports, { total: 1234.5, number: 'RE-1' }),
    {
      total: { evidence: { page: 2, quote: 'Gesamtbetrag 1.234,50 €' }, grounded: true, confidence: 0.8 },
      number: { evidence: null, grounded: false, confidence: 0 },
    },
    'one grounding per field present in the result',
  )
})

t.test('the confidence rule', async (t) => {
  t.equal(confidenceOf(0.97, true), 0.97)
  t.equal(confidenceOf(0.97, false), 0.5)
  t.equal(confidenceOf(0.3, false), 0.3)
  t.equal(confidenceOf(0.97, true, true), 0.2)
  t.equal(confidenceOf(7, true), 1)
  t.equal(confidenceOf('high', true), 0)
  t.same(contradicted({ evidence: null, grounded: true, confidence: 0.9 }).confidence, 0.2)
})
