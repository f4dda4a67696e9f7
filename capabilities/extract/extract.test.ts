import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

// Each subtest sets what the mock model answers and calls as its own customer.
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const text = 'Invoice INV-2041 from Acme GmbH. Total due: 1,250.00 EUR by 2026-03-31.'

t.test('one result per requested field, in order, keyed by the requested name', async (t) => {
  cap.reply({
    results: [
      { field: 'total', value: '1250.00', confidence: 0.9 }, // out of order
      { field: 'Invoice Number', value: 'INV-2041', confidence: 0.97 }, // loose spelling of invoiceNumber
      { field: 'iban', value: 'DE00 0000', confidence: 0.8 }, // never asked for
      { field: 'total', value: null, confidence: 0.99 }, // duplicate: the value wins over null
      { field: 'vendor', value: '   ', confidence: 0.7 }, // blank is no value
    ],
  })
  const call = await cap.call({ text, fields: ['invoiceNumber', 'vendor', 'total', 'dueDate'] })
  cap.expectCharged(t, call)
  t.same(call.res.body.results, [
    { field: 'invoiceNumber', value: 'INV-2041', confidence: 0.97 },
    { field: 'vendor', value: null, confidence: 0.7 },
    { field: 'total', value: '1250.00', confidence: 0.9 },
    { field: 'dueDate', value: null, confidence: 0 }, // the model left it out
  ])
})

t.test('a model that answers nothing still yields every field', async (t) => {
  cap.reply({ results: [] })
  const { res } = await cap.call({ text, fields: ['a', 'b'] })
  t.equal(res.status, 200, res.text)
  t.same(res.body.results, [
    { field: 'a', value: null, confidence: 0 },
    { field: 'b', value: null, confidence: 0 },
  ])
})

t.test('a loose spelling shared by two requested fields is not guessed', async (t) => {
  cap.reply({ results: [{ field: 'due date', value: '2026-03-31', confidence: 0.9 }] })
  const { res } = await cap.call({ text, fields: ['dueDate', 'due_date'] })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.results.map((r: any) => r.value),
    [null, null],
  )
})

t.test('a confidence outside 0..1 twice is a free 502', async (t) => {
  cap.reply({ results: [{ field: 'a', value: 'x', confidence: 7 }] })
  await cap.expectRefused(t, { text, fields: ['a'] }, { status: 502, code: 'inference_failed', why: 'confidence 7' })
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  cap.forbidModel(t)
  const bad: Array<[string, unknown]> = [
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
  ]
  for (const [why, body] of bad) {
    const { res } = await cap.expectRefused(t, body, { why })
    t.ok(Array.isArray(res.body.error.details), why)
  }
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({
    text: (req) => {
      if (!req.prompt.includes('INV-2041')) return undefined
      return {
        results: [
          { field: 'invoiceNumber', value: 'INV-2041', confidence: 0.96 },
          { field: 'vendor', value: 'Acme GmbH', confidence: 0.9 },
        ],
      }
    },
  })
  const call = await cap.call({ text, fields: ['invoiceNumber', 'vendor', 'dueDate'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    results: [
      { field: 'invoiceNumber', value: 'INV-2041', confidence: 0.96 },
      { field: 'vendor', value: 'Acme GmbH', confidence: 0.9 },
      { field: 'dueDate', value: null, confidence: 0 },
    ],
    usage: { credits: 4, balanceRemaining: 6 },
  })
  t.equal(fake.requests.length, 1)
})
