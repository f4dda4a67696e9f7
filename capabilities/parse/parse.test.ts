import { readFileSync } from 'node:fs'
import t from 'tap'
import type { ModelProvider } from '../../core/models/provider.ts'
import { checkManifest } from '../../core/registry.ts'
import { invoice1, receipt1 } from '../../test/fixtures/documents.ts'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, TINY_PNG } from '../../test/helpers/fake-openai.ts'
import manifest from './manifest.ts'

const PRICE = 10
const capability = checkManifest(manifest as never, 'parse', 'capabilities/parse')
const pdf = (name: string) => ({
  data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'),
  mimeType: 'application/pdf',
})

/** A well-behaved model answer for invoice-1. */
function answer(over: Record<string, unknown> = {}) {
  return {
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
}

const expected = {
  docType: 'invoice',
  party: invoice1.vendor.name,
  documentNumber: invoice1.invoiceNumber,
  date: invoice1.issueDate,
  totalAmount: invoice1.total,
  currency: 'USD',
  lineItems: invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
  fields: [
    { label: 'PO number', value: 'PO-55810', confidence: 0.97 },
    { label: 'Due date', value: '2024-04-03', confidence: 0.95 },
    { label: 'Tax', value: 187.8, confidence: 0.9 },
    { label: 'Payment terms', value: 'Net 30', confidence: 0.92 },
  ],
  warnings: [],
}

const withoutUsage = (body: any) => {
  const { usage: _u, ...rest } = body
  return rest
}
const untouched = (credits: number) => ({ balance: credits, reserved: 0, ledgerSum: credits })

async function pollJob(app: TestApp, key: string, jobId: string): Promise<any> {
  for (let i = 0; i < 150; i++) {
    const res = await app.call(`/v1/jobs/${jobId}`, { key })
    if (res.body?.status === 'succeeded' || res.body?.status === 'failed') return res.body
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`job ${jobId} did not finish`)
}

let reply: (prompt: string) => unknown = () => answer()
const app = await startTestApp(t, { provider: mockProvider((p) => reply(p)), capabilities: [capability] })
const post = (key: string, body: unknown) => app.call('/v1/parse', { key, body })

t.test('a PDF with a docType hint: text extracted, file sent, odd values normalised', async (t) => {
  const c = await app.customer(100)
  let prompt = ''
  reply = (p) => {
    prompt = p
    return answer({
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
    })
  }
  const res = await post(c.key, { file: pdf('invoice-1'), docType: 'invoice' })
  t.equal(res.status, 200, res.text)
  t.same(withoutUsage(res.body), expected)
  t.same(res.body.usage, { credits: PRICE, balanceRemaining: 100 - PRICE })
  t.match(prompt, /--- page 1 ---/, 'text extracted locally, with page markers')
  t.match(prompt, /NW-2024-0117/)
  t.match(prompt, /application\/pdf/, 'the PDF is sent as a file to a model that accepts files')
  t.match(prompt, /The caller expects \\"invoice\\"/, 'the hint reaches the model')
})

t.test('an image goes to the model as an image; a PDF without text goes as a file', async (t) => {
  const c = await app.customer(100)
  let prompt = ''
  reply = (p) => {
    prompt = p
    return answer({ docType: 'receipt', party: receipt1.merchant, lineItems: [], fields: [] })
  }
  let res = await post(c.key, { file: { data: TINY_PNG.toString('base64'), mimeType: 'image/png' } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.docType, 'receipt')
  t.match(prompt, /image\/png/, 'the image is in the prompt')
  t.notMatch(prompt, /--- page/, 'no text layer for an image')

  res = await post(c.key, { file: pdf('image-only') })
  t.equal(res.status, 200, res.text)
  t.match(prompt, /application\/pdf/, 'the scanned PDF is sent as a file')
  t.notMatch(prompt, /--- page/, 'no text to send')
})

t.test('docType: normalised, aliases mapped, the hint as fallback, none at all is a failed call', async (t) => {
  const c = await app.customer(100)
  for (const [given, hint, want] of [
    ['Explanation of Benefits', undefined, 'eob'],
    ['Certificate of Insurance', 'coi', 'coi'],
    ['Bank Statement', undefined, 'bank_statement'],
    ['utility-bill', undefined, 'utility_bill'],
    [null, 'ERA', 'era'],
    ['  ', 'Purchase order', 'purchase_order'],
  ] as const) {
    reply = () => answer({ docType: given })
    const res = await post(c.key, { text: invoice1.toText(), ...(hint ? { docType: hint } : {}) })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.docType, want, `${given} (hint ${hint}) → ${want}`)
  }
  const before = await app.ledger(c.accountId)
  reply = () => answer({ docType: null })
  const res = await post(c.key, { text: invoice1.toText() })
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'inference_failed')
  t.same(await app.ledger(c.accountId), before, 'free')
})

t.test('confidence: always 0..1; percentages read as such; out of range is a failed call', async (t) => {
  const c = await app.customer(100)
  reply = () => answer({ fields: [{ label: 'A', value: 'x', confidence: 1 }, { label: 'B', value: 'y', confidence: 0 }, { label: 'C', value: 'z', confidence: '87%' }] })
  let res = await post(c.key, { text: invoice1.toText() })
  t.same(res.body.fields.map((f: any) => f.confidence), [1, 0, 0.87])

  for (const bad of [250, -0.2, 'high', null]) {
    const before = await app.ledger(c.accountId)
    reply = () => answer({ fields: [{ label: 'Invoice number', value: 'NW-2024-0117', confidence: bad }] })
    res = await post(c.key, { text: invoice1.toText() })
    t.equal(res.status, 502, `${bad}: ${res.text}`)
    t.equal(res.body.error.code, 'inference_failed')
    t.same(await app.ledger(c.accountId), before, 'free')
  }
})

t.test('values: dates and amounts by label, other strings kept; unreadable values omitted and reported', async (t) => {
  const c = await app.customer(100)
  reply = () =>
    answer({
      date: '2024-02-30',
      totalAmount: 'see page 2',
      currency: 'dollars',
      lineItems: [{ description: 'Chair', amount: '998.00' }, { description: 'Shipping', amount: 'included' }, { description: '', amount: 5 }],
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
    })
  const res = await post(c.key, { text: invoice1.toText() })
  t.equal(res.status, 200, res.text)
  for (const k of ['date', 'totalAmount', 'currency']) t.notOk(k in res.body, `${k} omitted`)
  t.same(res.body.lineItems, [{ description: 'Chair', amount: 998 }])
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

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  const c = await app.customer(100)
  reply = () => answer()
  const bodies: Array<[string, unknown]> = [
    ['docType over 64 characters', { text: 'x', docType: 'i'.repeat(65) }],
    ['docType not a string', { text: 'x', docType: ['invoice'] }],
    ['no document', { docType: 'invoice' }],
    ['two documents', { text: 'x', file: pdf('invoice-1') }],
    ['unknown field', { text: 'x', pages: [1] }],
    ['fileUrl with credentials', { fileUrl: 'https://user:pw@example.com/a.pdf' }],
  ]
  for (const [why, body] of bodies) {
    const res = await post(c.key, body)
    t.equal(res.status, 400, `${why}: ${res.text.slice(0, 200)}`)
    t.equal(res.body?.error?.code, 'invalid_request', why)
  }
  t.same(await app.ledger(c.accountId), untouched(100))
})

t.test('through the fake OpenAI-compatible server: both wire APIs sync, then async with the same result', async (t) => {
  const fake = await startFakeOpenAI({ text: () => answer() })
  t.teardown(() => fake.close())
  // One app whose provider speaks either wire API: Responses accepts files, chat completions does not (C11).
  let wire: 'responses' | 'chat' = 'responses'
  const providers = { responses: fakeServerProvider(fake.baseURL, 'responses'), chat: fakeServerProvider(fake.baseURL, 'chat') }
  const provider: ModelProvider = {
    ...providers.responses,
    get acceptsFiles() {
      return providers[wire].acceptsFiles
    },
    language: () => providers[wire].language(),
  }
  const real = await startTestApp(t, { provider, capabilities: [capability], worker: true })
  const c = await real.customer(100)

  const sync = await real.call('/v1/parse', { key: c.key, body: { file: pdf('invoice-1'), docType: 'invoice' } })
  t.equal(sync.status, 200, sync.text)
  t.same(withoutUsage(sync.body), expected)
  t.same(sync.body.usage, { credits: PRICE, balanceRemaining: 100 - PRICE })
  const sent = JSON.stringify(fake.requests.at(-1))
  t.equal(fake.requests.at(-1)?.path, '/v1/responses')
  t.match(sent, /NW-2024-0117/, 'extracted text sent')
  t.match(sent, /application\/pdf/, 'the PDF sent as a file on the Responses API')

  wire = 'chat'
  const chat = await real.call('/v1/parse', { key: c.key, body: { file: pdf('invoice-1'), docType: 'invoice' } })
  t.equal(chat.status, 200, chat.text)
  t.same(withoutUsage(chat.body), expected)
  t.equal(fake.requests.at(-1)?.path, '/v1/chat/completions')
  t.match(JSON.stringify(fake.requests.at(-1)), /NW-2024-0117/, 'extracted text sent')
  t.notMatch(JSON.stringify(fake.requests.at(-1)), /application\/pdf/, 'no file part where the wire API takes none')

  wire = 'responses'
  const accepted = await real.call('/v1/parse', { key: c.key, body: { file: pdf('invoice-1'), docType: 'invoice', async: true } })
  t.equal(accepted.status, 202, accepted.text)
  const job = await pollJob(real, c.key, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 3 * PRICE })
})
