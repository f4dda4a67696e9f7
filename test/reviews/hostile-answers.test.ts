// The review rule (C21) against hostile model answers on parse: values of the wrong type, deep nesting, huge
// strings, missing or malformed evidence, numbers as strings, nulls everywhere, and a model that claims its own
// evidence. Whatever the answer, the call is never a 500; a value the answer gives that code could not verify goes
// to review; no value is published verified unless its quote is in the document.
import t from 'tap'
import { DocumentText } from '../../core/evidence/ground.ts'
import { flagged, gradedValues } from '../../core/reviews/rule.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { invoice1 } from '../../devkit/fixtures/documents.ts'
import { quoted, supports } from '../../devkit/evidence.ts'
import { capabilityHarness } from '../helpers/capability.ts'

const pages = invoice1.toPages()
const text = invoice1.toText()
const cap = await capabilityHarness(t, parse, { funds: 10_000 })
const ABSENT = 7777.77

const deep = (depth: number, leaf: unknown): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v }
  return v
}

/** A well-behaved answer, every value quoted from the document. */
function good(): Record<string, any> {
  const a = {
    docType: 'invoice',
    party: invoice1.vendor.name,
    documentNumber: invoice1.invoiceNumber,
    date: invoice1.issueDate,
    totalAmount: invoice1.total,
    currency: invoice1.currency,
    lineItems: quoted(
      pages,
      invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
      ['description', 'amount'],
    ),
    fields: quoted(pages, [{ label: 'PO number', value: invoice1.poNumber, confidence: 0.97 }], ['value']),
  }
  return { ...a, support: supports(pages, { party: a.party, documentNumber: a.documentNumber, date: a.date, totalAmount: a.totalAmount }) }
}

const HOSTILE: Array<[string, () => unknown]> = [
  [
    'values of the wrong type',
    () => ({ ...good(), party: 123, totalAmount: { amount: 1 }, date: [2024], lineItems: 'none', fields: { a: 1 } }),
  ],
  [
    'nested arrays and objects at depth',
    () => ({ ...good(), party: deep(2000, 'x'), fields: [{ label: 'deep', value: deep(500, 1), confidence: 0.9 }] }),
  ],
  [
    'huge strings',
    () => ({
      ...good(),
      party: 'N'.repeat(2_000_000),
      support: [{ field: 'party', quote: 'N'.repeat(2_000_000), page: 1, confidence: 1 }],
    }),
  ],
  [
    'missing evidence fields',
    () => ({
      ...good(),
      support: [],
      lineItems: invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
      fields: [{ label: 'PO number', value: invoice1.poNumber, confidence: 0.97 }],
    }),
  ],
  [
    'numbers as strings',
    () => ({
      ...good(),
      totalAmount: String(ABSENT),
      lineItems: [{ description: 'Widgets', amount: '12.50', quote: 'Widgets 12.50', page: 1, confidence: 1 }],
      fields: [{ label: 'Tax', value: '9999', confidence: '99%', quote: 'Tax 9999', page: 1 }],
    }),
  ],
  [
    'numbers as strings in the evidence',
    () => ({ ...good(), support: [{ field: 'party', quote: invoice1.vendor.name, page: '1', confidence: '0.99' }] }),
  ],
  [
    'null everywhere',
    () => ({
      docType: 'invoice',
      party: null,
      documentNumber: null,
      date: null,
      totalAmount: null,
      currency: null,
      support: [{ field: 'party', quote: null, page: null, confidence: null }],
      lineItems: [{ description: null, amount: null, quote: null, page: null, confidence: null }],
      fields: [{ label: 'PO number', value: null, quote: null, page: null, confidence: 0.9 }],
    }),
  ],
  ['null as the answer', () => null],
  [
    'quotes the document does not have, at full confidence',
    () => ({
      ...good(),
      totalAmount: ABSENT,
      support: [{ field: 'totalAmount', quote: `Total due: ${ABSENT}`, page: 1, confidence: 1 }],
      lineItems: [{ description: 'Consulting', amount: ABSENT, quote: `Consulting ${ABSENT}`, page: 1, confidence: 1 }],
    }),
  ],
  [
    'its own evidence claimed',
    () => ({
      ...good(),
      lineItems: [
        {
          description: 'Consulting',
          amount: ABSENT,
          quote: 'x',
          page: 1,
          confidence: 1,
          grounded: true,
          evidence: { page: 1, quote: 'x' },
        },
      ],
      grounding: { totalAmount: { grounded: true, confidence: 1, evidence: { page: 1, quote: String(ABSENT) } } },
    }),
  ],
]

t.test('a hostile answer is never a 500; what code could not verify goes to review, nothing unfound is verified', async (t) => {
  const c = await cap.customer()
  t.equal((await cap.app.call('/v1/review-settings', { key: c.key, method: 'PUT', body: { mode: 'ungrounded' } })).status, 200)
  const document = DocumentText.ofText(text)
  for (const [name, answer] of HOSTILE) {
    cap.reply(answer())
    const res = await cap.post(c, { text })
    t.not(res.status, 500, `${name}: not a 500 (${res.status} ${res.text.slice(0, 200)})`)
    if (res.status !== 200) {
      t.equal(res.status, 502, `${name}: refused as the model's failure`)
      continue
    }
    const values = gradedValues(res.body)
    const sent = new Set(res.body.review?.fields ?? [])
    for (const v of values) {
      if (!v.grounded) t.ok(sent.has(v.path), `${name}: ${v.path}, unverified, goes to review`)
      else t.ok(v.evidence && document.find(v.evidence.quote), `${name}: ${v.path} verified only on a quote of the document`)
    }
  }
})

t.test('the rule reads any result shape without throwing, and sends malformed evidence to review', async (t) => {
  const rule = { mode: 'ungrounded' as const, threshold: null }
  const shapes: unknown[] = [
    { grounding: null },
    { grounding: 'x' },
    { grounding: [1, null, { grounded: true }] },
    { grounding: { a: null, b: 'x', c: 3 } },
    { items: [null, 1, 'x', [[[]]]] },
    deep(5000, { grounded: false, confidence: 0, evidence: null }),
    { s: 'x'.repeat(5_000_000) },
  ]
  shapes.forEach((shape, i) => t.doesNotThrow(() => flagged(rule, gradedValues(shape as object)), `shape ${i}`))

  const malformed = {
    grounding: {
      party: { grounded: 'true', confidence: 1, evidence: { page: 1, quote: 'Northwind' } },
      date: { grounded: true, confidence: '0.9', evidence: { page: 1, quote: '2024' } },
      total: { grounded: true, confidence: 1 },
      number: { grounded: true, confidence: 1, evidence: { page: 1, quote: 42 } },
      vendor: null,
    },
    lineItems: [
      { description: 'a', grounded: true, confidence: 1, evidence: null },
      { description: 'b', grounded: true, confidence: Number.NaN, evidence: { page: 1, quote: 'b' } },
      { description: 'c', grounded: null, confidence: null, evidence: null },
      { description: 'd', grounded: true, confidence: 0.9, evidence: { page: 1, quote: 'd' } },
    ],
  }
  t.same(
    flagged(rule, gradedValues(malformed)).map((v) => v.path),
    ['/party', '/date', '/total', '/number', '/vendor', '/lineItems/0', '/lineItems/1', '/lineItems/2'],
    'every value whose evidence is not a grounded quote with a confidence; only the well-formed one passes',
  )
  const g = { grounded: true, confidence: 0.9, evidence: { page: 1, quote: 'q' } }
  t.same(
    gradedValues({ lineItems: [g, { nested: [g] }], grounding: { 'vendor.name': g, 'a/b': g }, fields: [g], grounded: true }).map(
      (v) => v.path,
    ),
    ['/lineItems/0', '/lineItems/1/nested/0', '/vendor/name', '/a~1b', '/fields/0'],
    'in the order of the result, as JSON pointers; the result-wide grounded is not a value',
  )
  t.same(
    flagged({ mode: 'below', threshold: 0.5 }, gradedValues(malformed)).map((v) => v.path),
    ['/party', '/date', '/total', '/number', '/vendor', '/lineItems/0', '/lineItems/1', '/lineItems/2'],
    'below: malformed evidence counts as no confidence',
  )
})
