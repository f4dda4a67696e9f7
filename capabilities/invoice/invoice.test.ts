import t, { type Test as Tap } from 'tap'
import { invoice1, invoice2, invoiceFields, type InvoiceData } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf, withoutUsage } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundings, supported, withoutEvidence } from '../../devkit/evidence.ts'
import manifest from './manifest.ts'
import { GROUNDED } from './schema.ts'

const PRICE = 8

/** A well-behaved model answer for a known invoice (every field, null where absent, each quoted from its line). */
const sup = (a: Record<string, unknown>, i: { toPages(): string[] } = invoice1) =>
  supported(a, i.toPages(), { lineItems: ['description', 'amount'] }, GROUNDED)
const answerFor = (i: InvoiceData & { toPages(): string[] }) => sup(invoiceFields(i), i)

/** Every value carries evidence code found. */
function allGrounded(t: Tap, body: unknown) {
  const all = groundings(body)
  t.ok(all.length > 0, 'values with evidence')
  t.same(
    all.filter((g) => !g.grounded),
    [],
    'every value grounded',
  )
}

/** What the API returns for a known invoice. */
function expected(i: InvoiceData) {
  const { taxRate: _rate, poNumber, ...rest } = i
  return {
    vendor: rest.vendor,
    customer: rest.customer,
    invoiceNumber: rest.invoiceNumber,
    ...(poNumber ? { poNumber } : {}),
    issueDate: rest.issueDate,
    dueDate: rest.dueDate,
    currency: rest.currency,
    subtotal: rest.subtotal,
    tax: rest.tax,
    total: rest.total,
    paymentTerms: rest.paymentTerms,
    lineItems: rest.lineItems,
    warnings: [],
  }
}

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 100 })

t.test('a sloppy but correct answer comes back normalised, charged once', async (t) => {
  cap.reply(
    sup({
      ...answerFor(invoice1),
      vendor: { name: '  Northwind Office Supply LLC ', address: '410 Harbor Street\nPortland, OR 97204', taxId: '93-4417820' },
      issueDate: 'March 4, 2024',
      dueDate: '04/03/2024', // US order
      currency: 'usd',
      subtotal: '2,347.44',
      tax: '$187.80',
      total: 'USD 2,535.24',
      lineItems: invoice1.lineItems.map((l) => ({
        description: l.description,
        quantity: String(l.quantity),
        unitPrice: `$${l.unitPrice}`,
        amount: l.amount.toFixed(2),
      })),
    }),
  )
  const call = await cap.call({ text: invoice1.toText() })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(withoutEvidence(withoutUsage(res.body)), {
    ...expected(invoice1),
    vendor: { ...invoice1.vendor, address: '410 Harbor Street, Portland, OR 97204' },
  })
  allGrounded(t, res.body)
  t.equal(typeof res.body.total, 'number')
})

t.test('a PDF given inline: text extracted locally and the file sent along', async (t) => {
  cap.reply(answerFor(invoice1))
  const { res } = await cap.call({ file: pdf('invoice-1') })
  t.equal(res.status, 200, res.text)
  t.same(withoutEvidence(withoutUsage(res.body)), expected(invoice1))
  allGrounded(t, res.body)
  const prompt = cap.prompts.at(-1)
  t.match(prompt, /--- page 1 ---/, 'page markers from local extraction')
  t.match(prompt, /NW-2024-0117/, 'the extracted text reaches the model')
  t.match(prompt, /application\/pdf/, 'the PDF itself is sent to a model that accepts files')
  t.match(prompt, /Amounts as plain numbers/, 'the system prompt')
})

t.test('sums that do not add up are reported, never fixed', async (t) => {
  const lines = invoice1.lineItems.map((l) => ({ ...l }))
  lines[0]!.amount = 999 // 4 × 249.50 is 998
  cap.reply(sup({ ...answerFor(invoice1), lineItems: lines, total: 2600 }))
  const { res } = await cap.call({ text: invoice1.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.lineItems[0].amount, 999, 'the stated line amount is kept')
  t.equal(res.body.subtotal, 2347.44, 'the stated subtotal is kept')
  t.equal(res.body.total, 2600, 'the stated total is kept')
  t.same(res.body.warnings, [
    'lineItems[0]: quantity × unitPrice is 998.00, the amount stated is 999.00.',
    'lineItems vs subtotal: the parts add up to 2348.44, the document states 2347.44.',
    'subtotal + tax vs total: the parts add up to 2535.24, the document states 2600.',
  ])
  t.same(
    res.body.usage,
    { credits: PRICE, balanceRemaining: 100 - PRICE, livemode: true },
    'a document that does not add up is still a successful extraction',
  )
  // Issue 29: a figure code found wrong is capped at 0.2; a total the document does not state has no evidence.
  t.same(res.body.grounding.subtotal, { ...res.body.grounding.subtotal, confidence: 0.2 }, 'the subtotal the lines contradict')
  t.same(res.body.grounding.total, { evidence: null, grounded: false, confidence: 0.2 }, 'the total: not in the document, and wrong')
  t.equal(res.body.lineItems[0].confidence, 0.2, 'the line whose quantity × unit price contradicts its amount')
  t.equal(res.body.lineItems[1].confidence, 0.9, 'the other lines keep their figure')
})

t.test('without a subtotal the lines are checked against the total', async (t) => {
  cap.reply({ ...answerFor(invoice2), subtotal: null, total: 8600 })
  const { res } = await cap.call({ text: invoice2.toText() })
  t.equal(res.status, 200, res.text)
  t.notOk('subtotal' in res.body)
  t.same(res.body.warnings, ['lineItems + tax vs total: the parts add up to 8508.5, the document states 8600.'])
})

t.test('odd dates, currencies and unreadable values: normalised or omitted with a warning', async (t) => {
  cap.reply({
    ...answerFor(invoice2),
    issueDate: '31/31/2024',
    dueDate: '29.05.2024', // day.month.year
    currency: '€',
    tax: '19%',
    poNumber: 'N/A',
    customer: null,
    paymentTerms: '',
  })
  const { res } = await cap.call({ text: invoice2.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.dueDate, '2024-05-29')
  t.equal(res.body.currency, 'EUR')
  for (const absent of ['issueDate', 'tax', 'poNumber', 'customer', 'paymentTerms']) t.notOk(absent in res.body, `${absent} omitted`)
  t.same(
    res.body.warnings,
    ['tax: "19%" is not an amount; omitted.', 'issueDate: "31/31/2024" is not a valid date; omitted.'],
    'what could not be read is said; sums involving the unreadable tax are not checked',
  )
})

t.test('a currency that is not ISO 4217 is omitted with a warning', async (t) => {
  cap.reply({ ...answerFor(invoice1), currency: 'dollars' })
  const { res } = await cap.call({ text: invoice1.toText() })
  t.equal(res.status, 200, res.text)
  t.notOk('currency' in res.body)
  t.same(res.body.warnings, ['currency: "dollars" is not an ISO 4217 currency code; omitted.'])
})

t.test('line items without an amount: computed from quantity × unitPrice, or left out, and said so', async (t) => {
  const lines: any[] = invoice1.lineItems.map((l) => ({ ...l }))
  lines[1].amount = null
  lines.push({ description: 'Delivery note: leave at reception', quantity: null, unitPrice: null, amount: null })
  lines.push({ description: null, quantity: null, unitPrice: null, amount: 5 })
  cap.reply({ ...answerFor(invoice1), lineItems: lines })
  const { res } = await cap.call({ text: invoice1.toText() })
  t.equal(res.status, 200, res.text)
  t.same(withoutEvidence(res.body.lineItems), invoice1.lineItems)
  t.same(res.body.warnings, [
    'lineItems[1]: no amount stated; computed as quantity × unitPrice = 824.50.',
    'A line item ("Delivery note: leave at reception") without an amount was left out.',
    'A line item without a description (amount 5.00) was left out.',
  ])
})

t.test('no vendor: 502 inference_failed, free', async (t) => {
  cap.reply({ ...answerFor(invoice1), vendor: { name: '  ', address: null, taxId: null } })
  await cap.expectRefused(t, { text: invoice1.toText() }, { status: 502, code: 'inference_failed', why: 'no vendor' })
})

t.test('an answer that breaks the schema twice: 502 inference_failed, free', async (t) => {
  cap.reply({ ...answerFor(invoice1), lineItems: 'see attached', total: { value: 1 } })
  await cap.expectRefused(t, { text: invoice1.toText() }, { status: 502, code: 'inference_failed', why: 'lineItems not a list' })
  t.equal(cap.prompts.length, 2, 'one retry')
})

capabilitySuite(t, cap, {
  badInput: [
    ['no document', {}],
    ['two documents', { text: 'x', fileUrl: 'https://example.com/a.pdf' }],
    ['unknown field', { text: 'x', vendor: 'y' }],
    ['empty text', { text: '' }],
    ['fileUrl not http(s)', { fileUrl: 'ftp://example.com/a.pdf' }],
    ['file without mimeType', { file: { data: 'JVBERi0=' } }],
    ['file.data not base64', { file: { data: '%%% not base64 %%%', mimeType: 'application/pdf' } }],
    ['async not a boolean', { text: 'x', async: 'yes' }],
    ['text too long', { text: 'x'.repeat(500_001) }],
  ],
})

t.test('valid input that cannot be processed: 422 unprocessable, nothing charged', async (t) => {
  for (const body of [
    { text: '   \n ' },
    { file: { data: Buffer.from('PK\u0003\u0004 not a pdf').toString('base64'), mimeType: 'application/pdf' } },
  ]) {
    await cap.expectRefused(t, body, { status: 422, code: 'unprocessable' })
  }
})

t.test('through the fake OpenAI-compatible server: sync, then async with the same result', async (t) => {
  const fake = await cap.useFake({ text: () => answerFor(invoice2) })
  const call = await cap.call({ file: pdf('invoice-2') })
  cap.expectCharged(t, call)
  const { res: sync, customer: c } = call
  t.same(withoutEvidence(withoutUsage(sync.body)), expected(invoice2))
  allGrounded(t, sync.body)
  const sent = fake.requests.find((r) => r.path === '/v1/responses')?.body
  t.ok(sent, 'the Responses API was called')
  t.match(JSON.stringify(sent.input), /KCC-7731/, 'extracted text sent')
  t.match(JSON.stringify(sent.input), /application\/pdf/, 'PDF sent as a file')
  t.notOk(JSON.stringify(sent.text?.format?.schema ?? {}).includes('warnings'), 'the model is not asked for warnings')

  const accepted = await cap.post(c, { file: pdf('invoice-2'), async: true })
  t.equal(accepted.status, 202, accepted.text)
  t.equal(accepted.body.status, 'queued')
  const job = await cap.job(c, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 2 * PRICE, livemode: true })
  t.same(await cap.app.ledger(c.accountId), { balance: 100 - 2 * PRICE, reserved: 0, ledgerSum: 100 - 2 * PRICE })
})
