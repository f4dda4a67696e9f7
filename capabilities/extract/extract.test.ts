import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// Each subtest sets what the mock model answers and calls as its own customer.
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const text = 'Invoice INV-2041 from Acme GmbH. Total due: 1,250.00 EUR by 2026-03-31.'

/** A model's result, quoting `quote` (by default the value itself) from the text. */
const said = (field: string, value: string | null, confidence: number, quote: string | null = value) => ({
  field,
  value,
  quote,
  page: null,
  confidence,
})
/** What the API publishes for a value quoted as printed: grounded on the text, which has no pages. */
const found = (field: string, value: string, confidence: number, quote = value) => ({
  field,
  value,
  evidence: { page: null, quote },
  grounded: true,
  confidence,
})
const none = (field: string, confidence = 0) => ({ field, value: null, evidence: null, grounded: false, confidence })

t.test('one result per requested field, in order, keyed by the requested name', async (t) => {
  cap.reply({
    results: [
      said('total', '1250.00', 0.9, 'Total due: 1,250.00 EUR'), // out of order
      said('Invoice Number', 'INV-2041', 0.97), // loose spelling of invoiceNumber
      said('iban', 'DE00 0000', 0.8), // never asked for
      said('total', null, 0.99), // duplicate: the value wins over null
      said('vendor', '   ', 0.7), // blank is no value
    ],
  })
  const call = await cap.call({ text, fields: ['invoiceNumber', 'vendor', 'total', 'dueDate'] })
  cap.expectCharged(t, call)
  t.same(call.res.body.results, [
    found('invoiceNumber', 'INV-2041', 0.97),
    none('vendor', 0.5), // no value: never grounded, the model's 0.7 capped
    found('total', '1250.00', 0.9, 'Total due: 1,250.00 EUR'),
    none('dueDate'), // the model left it out
  ])
})

t.test('a model that answers nothing still yields every field', async (t) => {
  cap.reply({ results: [] })
  const { res } = await cap.call({ text, fields: ['a', 'b'] })
  t.equal(res.status, 200, res.text)
  t.same(res.body.results, [none('a'), none('b')])
})

t.test('a loose spelling shared by two requested fields is not guessed', async (t) => {
  cap.reply({ results: [said('due date', '2026-03-31', 0.9)] })
  const { res } = await cap.call({ text, fields: ['dueDate', 'due_date'] })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.results.map((r: any) => r.value),
    [null, null],
  )
})

t.test('a confidence outside 0..1 twice is a free 502', async (t) => {
  cap.reply({ results: [said('a', 'x', 7)] })
  await cap.expectRefused(t, { text, fields: ['a'] }, { status: 502, code: 'inference_failed', why: 'confidence 7' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no fields', { text }],
    ['empty fields', { text, fields: [] }],
    ['101 fields', { text, fields: Array.from({ length: 101 }, (_, i) => `f${i}`) }],
    ['duplicate fields', { text, fields: ['a', 'a'] }],
    ['empty field name', { text, fields: [''] }],
    ['field not a string', { text, fields: [3] }],
    ['no text', { fields: ['a'] }],
    ['empty text', { text: '', fields: ['a'] }],
    ['text too long', { text: 'x'.repeat(500_001), fields: ['a'] }],
    ['unknown property', { text, fields: ['a'], extra: true }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({
    text: (req) => {
      if (!req.prompt.includes('INV-2041')) return undefined
      return {
        results: [said('invoiceNumber', 'INV-2041', 0.96, 'Invoice INV-2041'), said('vendor', 'Acme GmbH', 0.9, 'from ACME GmbH.')],
      }
    },
  })
  const call = await cap.call({ text, fields: ['invoiceNumber', 'vendor', 'dueDate'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    results: [
      found('invoiceNumber', 'INV-2041', 0.96, 'Invoice INV-2041'),
      found('vendor', 'Acme GmbH', 0.9, 'from Acme GmbH.'),
      none('dueDate'),
    ],
    usage: { credits: 4, balanceRemaining: 6, livemode: true },
  })
  t.equal(fake.requests.length, 1)
})

t.test('issue 29: a value the text does not state, or a quote it does not contain, has no evidence', async (t) => {
  cap.reply({
    results: [
      said('invoiceNumber', 'INV-9999', 0.99, 'Invoice INV-9999'), // invented, quote too
      said('vendor', 'Globex Ltd', 0.98, 'from Acme GmbH'), // a real quote that does not state the value
      said('total', '1250.00', 0.97, 'Total: 1250.00'), // the value is there, the quote is not
      said('dueDate', '2026-03-31', 0.95, 'BY 2026-03-31'), // case and spacing do not matter
    ],
  })
  const call = await cap.call({ text, fields: ['invoiceNumber', 'vendor', 'total', 'dueDate'] })
  cap.expectCharged(t, call)
  t.same(call.res.body.results, [
    { field: 'invoiceNumber', value: 'INV-9999', evidence: null, grounded: false, confidence: 0.5 },
    { field: 'vendor', value: 'Globex Ltd', evidence: null, grounded: false, confidence: 0.5 },
    { field: 'total', value: '1250.00', evidence: null, grounded: false, confidence: 0.5 },
    found('dueDate', '2026-03-31', 0.95, 'by 2026-03-31'),
  ])
})
