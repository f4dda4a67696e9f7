import t from 'tap'
import { invoice1, receipt1 } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf, withoutUsage } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundedOn, quoted, supports } from '../../devkit/evidence.ts'
import { TINY_PNG } from '../../devkit/fake-openai.ts'
import manifest from './manifest.ts'

const PRICE = 10

const pages = invoice1.toPages()

/** A well-behaved model answer for invoice-1, every value quoted from the line that states it. */
function answer(over: Record<string, unknown> = {}) {
  const a: Record<string, any> = {
    docType: 'invoice',
    party: invoice1.vendor.name,
    documentNumber: invoice1.invoiceNumber,
    date: invoice1.issueDate,
    totalAmount: invoice1.total,
    currency: invoice1.currency,
    lineItems: invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
    fields: [
      { label: 'PO number', value: invoice1.poNumber, confidence: 0.97 },
      { label: 'Due date', value: invoice1.dueDate, confidence: 0.95 },
      { label: 'Tax', value: invoice1.tax, confidence: 0.9 },
      { label: 'Payment terms', value: invoice1.paymentTerms, confidence: 0.92 },
    ],
    ...over,
  }
  const values = { party: a.party, documentNumber: a.documentNumber, date: a.date, totalAmount: a.totalAmount }
  return {
    ...a,
    support: a.support ?? supports(pages, values),
    lineItems: quoted(pages, a.lineItems, ['description', 'amount']),
    fields: quoted(pages, a.fields, ['value']),
  }
}

const expected = {
  docType: 'invoice',
  party: invoice1.vendor.name,
  documentNumber: invoice1.invoiceNumber,
  date: invoice1.issueDate,
  totalAmount: invoice1.total,
  currency: 'USD',
  lineItems: invoice1.lineItems.map((l) => ({
    description: l.description,
    amount: l.amount,
    ...groundedOn(pages, [l.description, l.amount]),
  })),
  fields: [
    { label: 'PO number', value: 'PO-55810', ...groundedOn(pages, ['PO-55810'], 0.97) },
    { label: 'Due date', value: '2024-04-03', ...groundedOn(pages, ['2024-04-03'], 0.95) },
    { label: 'Tax', value: 187.8, ...groundedOn(pages, [187.8], 0.9) },
    { label: 'Payment terms', value: 'Net 30', ...groundedOn(pages, ['Net 30'], 0.92) },
  ],
  grounding: {
    party: groundedOn(pages, [invoice1.vendor.name]),
    documentNumber: groundedOn(pages, [invoice1.invoiceNumber]),
    date: groundedOn(pages, [invoice1.issueDate]),
    totalAmount: groundedOn(pages, [invoice1.total]),
  },
  warnings: [],
}

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 100 })

t.test('a PDF with a docType hint: text extracted, file sent, odd values normalised', async (t) => {
  cap.reply(
    answer({
      docType: ' Invoice ',
      date: '03/04/2024',
      totalAmount: '$2,535.24',
      currency: 'usd',
      lineItems: invoice1.lineItems.map((l) => ({ description: l.description, amount: `${l.amount.toFixed(2)} USD` })),
      fields: [
        { label: 'PO number', value: 'PO-55810', confidence: '0.97' },
        { label: 'Due date', value: 'April 3, 2024', confidence: 95 },
        { label: 'Tax', value: '$187.80', confidence: '90%' },
        { label: 'Payment terms', value: 'Net 30', confidence: 0.92 },
        { label: 'Payment terms', value: 'Net 30', confidence: 0.92 }, // a duplicate
      ],
    }),
  )
  const call = await cap.call({ file: pdf('invoice-1'), docType: 'invoice' })
  cap.expectCharged(t, call)
  t.same(withoutUsage(call.res.body), expected)
  const prompt = cap.prompts.at(-1)
  t.match(prompt, /--- page 1 ---/, 'text extracted locally, with page markers')
  t.match(prompt, /NW-2024-0117/)
  t.match(prompt, /application\/pdf/, 'the PDF is sent as a file to a model that accepts files')
  t.match(prompt, /The caller expects \\"invoice\\"/, 'the hint reaches the model')
})

t.test('an image goes to the model as an image; a PDF without text goes as a file', async (t) => {
  cap.reply(answer({ docType: 'receipt', party: receipt1.merchant, lineItems: [], fields: [] }))
  const image = await cap.call({ file: { data: TINY_PNG.toString('base64'), mimeType: 'image/png' } })
  t.equal(image.res.status, 200, image.res.text)
  t.equal(image.res.body.docType, 'receipt')
  t.match(cap.prompts.at(-1), /image\/png/, 'the image is in the prompt')
  t.notMatch(cap.prompts.at(-1), /--- page/, 'no text layer for an image')

  const scan = await cap.call({ file: pdf('image-only') })
  t.equal(scan.res.status, 200, scan.res.text)
  t.match(cap.prompts.at(-1), /application\/pdf/, 'the scanned PDF is sent as a file')
  t.notMatch(cap.prompts.at(-1), /--- page/, 'no text to send')
})

t.test('docType: normalised, aliases mapped, the hint as fallback, none at all is a failed call', async (t) => {
  const c = await cap.customer()
  for (const [given, hint, want] of [
    ['Explanation of Benefits', undefined, 'eob'],
    ['Certificate of Insurance', 'coi', 'coi'],
    ['Bank Statement', undefined, 'bank_statement'],
    ['utility-bill', undefined, 'utility_bill'],
    [null, 'ERA', 'era'],
    ['  ', 'Purchase order', 'purchase_order'],
  ] as const) {
    cap.reply(answer({ docType: given }))
    const res = await cap.post(c, { text: invoice1.toText(), ...(hint ? { docType: hint } : {}) })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.docType, want, `${given} (hint ${hint}) → ${want}`)
  }
  cap.reply(answer({ docType: null }))
  await cap.expectRefused(t, { text: invoice1.toText() }, { customer: c, status: 502, code: 'inference_failed', why: 'no docType at all' })
})

t.test('confidence: always 0..1; percentages read as such; out of range is a failed call', async (t) => {
  const c = await cap.customer()
  cap.reply(
    answer({
      fields: [
        { label: 'A', value: 'Zebra one', confidence: 1 },
        { label: 'B', value: 'Zebra two', confidence: 0 },
        { label: 'C', value: 'Zebra three', confidence: '87%' },
      ],
    }),
  )
  const res = await cap.post(c, { text: invoice1.toText() })
  t.same(
    res.body.fields.map((f: any) => f.confidence),
    [0.5, 0, 0.5],
    "values the document does not state: the model's figure capped at 0.5 (issue 29)",
  )

  for (const bad of [250, -0.2, 'high', null]) {
    cap.reply(answer({ fields: [{ label: 'Invoice number', value: 'NW-2024-0117', confidence: bad }] }))
    await cap.expectRefused(
      t,
      { text: invoice1.toText() },
      { customer: c, status: 502, code: 'inference_failed', why: `confidence ${bad}` },
    )
  }
})

t.test('values: dates and amounts by label, other strings kept; unreadable values omitted and reported', async (t) => {
  cap.reply(
    answer({
      date: '2024-02-30',
      totalAmount: 'see page 2',
      currency: 'dollars',
      lineItems: [
        { description: 'Chair', amount: '998.00' },
        { description: 'Shipping', amount: 'included' },
        { description: '', amount: 5 },
      ],
      fields: [
        { label: 'Claim number', value: '2024-00017', confidence: 0.9 },
        { label: 'Service date', value: '11 Jun 2024', confidence: 0.9 },
        { label: 'Patient responsibility', value: '€1.234,50', confidence: 0.9 },
        { label: 'Payment terms', value: 'Net 30', confidence: 0.9 },
        { label: 'Member ID', value: 4471, confidence: 0.9 },
        { label: 'Coverage limit', value: 'USD 1,000,000', confidence: 0.9 },
        { label: 'Notes', value: null, confidence: 0.5 },
        { label: ' ', value: 'orphan', confidence: 0.5 },
      ],
    }),
  )
  const { res } = await cap.call({ text: invoice1.toText() })
  t.equal(res.status, 200, res.text)
  for (const k of ['date', 'totalAmount', 'currency']) t.notOk(k in res.body, `${k} omitted`)
  t.same(
    res.body.lineItems.map((l: any) => [l.description, l.amount]),
    [['Chair', 998]],
  )
  t.same(
    res.body.fields.map((f: any) => [f.label, f.value]),
    [
      ['Claim number', '2024-00017'],
      ['Service date', '2024-06-11'],
      ['Patient responsibility', 1234.5],
      ['Payment terms', 'Net 30'],
      ['Member ID', 4471],
      ['Coverage limit', 1000000],
      ['Notes', null],
    ],
  )
  t.same(res.body.warnings, [
    'A line item ("Shipping") with "included", not an amount, was left out.',
    'A line item without a description (amount 5.00) was left out.',
    'A field without a label (value "orphan") was left out.',
    'date: "2024-02-30" is not a valid date; omitted.',
    'totalAmount: "see page 2" is not an amount; omitted.',
    'currency: "dollars" is not an ISO 4217 currency code; omitted.',
  ])
})

t.test('issue 16: items that do not add up to the total are reported, never fixed', async (t) => {
  // Before: items summing to 300 against a stated total of 999 gave warnings: [].
  const items = [
    { description: 'Widget A', amount: 100 },
    { description: 'Widget B', amount: 200 },
  ]
  cap.reply(answer({ totalAmount: 999, lineItems: items, fields: [] }))
  const { res } = await cap.call({ text: 'an invoice' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.totalAmount, 999, 'the stated total is kept')
  t.same(res.body.warnings, ['lineItems vs totalAmount: the parts add up to 300, the document states 999.'])

  // Tax and a discount the document states sit between items and total: 300 + 24 − 30 = 294 reconciles.
  cap.reply(
    answer({
      totalAmount: 294,
      lineItems: items,
      fields: [
        { label: 'Sales tax', value: '24.00', confidence: 0.9 },
        { label: 'Discount', value: '-30', confidence: 0.9 },
      ],
    }),
  )
  t.same((await cap.call({ text: 'an invoice' })).res.body.warnings, [])

  // A stated subtotal is what the items must make.
  cap.reply(answer({ totalAmount: 330, lineItems: items, fields: [{ label: 'Subtotal', value: 310, confidence: 0.9 }] }))
  t.same((await cap.call({ text: 'an invoice' })).res.body.warnings, [
    'lineItems vs subtotal: the parts add up to 300, the document states 310.',
  ])

  // An EOB's billed lines are not parts of the patient's share: not checked.
  cap.reply(answer({ docType: 'eob', totalAmount: 45, lineItems: items, fields: [] }))
  t.same((await cap.call({ text: 'an EOB' })).res.body.warnings, [])
})

capabilitySuite(t, cap, {
  badInput: [
    ['docType over 64 characters', { text: 'x', docType: 'i'.repeat(65) }],
    ['docType not a string', { text: 'x', docType: ['invoice'] }],
    ['no document', { docType: 'invoice' }],
    ['two documents', { text: 'x', file: pdf('invoice-1') }],
    ['unknown field', { text: 'x', pages: [1] }],
    ['fileUrl with credentials', { fileUrl: 'https://user:pw@example.com/a.pdf' }],
  ],
})

t.test('through the fake OpenAI-compatible server: both wire APIs sync, then async with the same result', async (t) => {
  // Responses accepts files, chat completions does not (C11).
  const fake = await cap.useFake({ text: () => answer() })
  const call = await cap.call({ file: pdf('invoice-1'), docType: 'invoice' })
  cap.expectCharged(t, call)
  const { res: sync, customer: c } = call
  t.same(withoutUsage(sync.body), expected)
  const sent = JSON.stringify(fake.requests.at(-1))
  t.equal(fake.requests.at(-1)?.path, '/v1/responses')
  t.match(sent, /NW-2024-0117/, 'extracted text sent')
  t.match(sent, /application\/pdf/, 'the PDF sent as a file on the Responses API')

  await cap.useFake({ wire: 'chat' })
  const chat = await cap.post(c, { file: pdf('invoice-1'), docType: 'invoice' })
  t.equal(chat.status, 200, chat.text)
  t.same(withoutUsage(chat.body), expected)
  t.equal(fake.requests.at(-1)?.path, '/v1/chat/completions')
  t.match(JSON.stringify(fake.requests.at(-1)), /NW-2024-0117/, 'extracted text sent')
  t.notMatch(JSON.stringify(fake.requests.at(-1)), /application\/pdf/, 'no file part where the wire API takes none')

  await cap.useFake({ wire: 'responses' })
  const accepted = await cap.post(c, { file: pdf('invoice-1'), docType: 'invoice', async: true })
  t.equal(accepted.status, 202, accepted.text)
  const job = await cap.job(c, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 3 * PRICE, livemode: true })
})
