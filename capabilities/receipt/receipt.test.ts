import { readFileSync } from 'node:fs'
import t from 'tap'
import { checkManifest } from '../../core/registry.ts'
import { receipt1, receipt2, type ReceiptData } from '../../test/fixtures/documents.ts'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import manifest from './manifest.ts'

const PRICE = 6
const capability = checkManifest(manifest as never, 'receipt', 'capabilities/receipt')
const pdf = (name: string) => ({
  data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'),
  mimeType: 'application/pdf',
})

/** A well-behaved model answer for a known receipt. */
const answerFor = (r: ReceiptData) => ({
  merchant: r.merchant,
  location: r.location,
  date: r.date,
  time: r.time,
  currency: r.currency,
  subtotal: r.subtotal,
  tax: r.tax,
  tip: r.tip,
  total: r.total,
  paymentMethod: r.paymentMethod,
  category: r.category,
  items: r.items.map((i) => ({ ...i })),
})

/** What the API returns for a known receipt. */
function expected(r: ReceiptData) {
  const { tip, ...rest } = r
  return {
    merchant: rest.merchant,
    location: rest.location,
    date: rest.date,
    time: rest.time,
    currency: rest.currency,
    subtotal: rest.subtotal,
    tax: rest.tax,
    ...(tip !== null ? { tip } : {}),
    total: rest.total,
    paymentMethod: rest.paymentMethod,
    category: rest.category,
    items: rest.items,
    warnings: [],
  }
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

let reply: (prompt: string) => unknown = () => answerFor(receipt1)
const app = await startTestApp(t, { provider: mockProvider((p) => reply(p)), capabilities: [capability] })
const post = (key: string, body: unknown) => app.call('/v1/receipt', { key, body })

t.test('a sloppy but correct answer comes back normalised, charged once', async (t) => {
  const c = await app.customer(100)
  reply = () => ({
    ...answerFor(receipt1),
    date: 'June 11, 2024',
    time: '12:47 PM',
    currency: 'usd',
    category: 'Meals',
    subtotal: '$47.90',
    tax: '4.07',
    tip: '8',
    total: 'USD 59.97',
    items: receipt1.items.map((i) => ({ description: i.description, quantity: `${i.quantity}`, amount: `$${i.amount.toFixed(2)}` })),
  })
  const res = await post(c.key, { text: receipt1.toText() })
  t.equal(res.status, 200, res.text)
  t.same(withoutUsage(res.body), expected(receipt1))
  t.same(res.body.usage, { credits: PRICE, balanceRemaining: 100 - PRICE })
})

t.test('a PDF given inline: text extracted locally and the file sent along', async (t) => {
  const c = await app.customer(100)
  let prompt = ''
  reply = (p) => {
    prompt = p
    return answerFor(receipt2)
  }
  const res = await post(c.key, { file: pdf('receipt-2') })
  t.equal(res.status, 200, res.text)
  t.same(withoutUsage(res.body), expected(receipt2))
  t.match(prompt, /Metro Taxi Co\./, 'the extracted text reaches the model')
  t.match(prompt, /application\/pdf/, 'the PDF itself is sent')
  t.match(prompt, /exactly one of: meals, travel, lodging, transport/, 'the category list is in the prompt')
})

t.test('sums including the tip are checked and reported, never fixed', async (t) => {
  const c = await app.customer(100)
  const items = receipt1.items.map((i) => ({ ...i }))
  items[2]!.amount = 11.5
  reply = () => ({ ...answerFor(receipt1), items, total: 59 })
  let res = await post(c.key, { text: receipt1.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.total, 59, 'the stated total is kept')
  t.equal(res.body.items[2].amount, 11.5, 'the stated item amount is kept')
  t.same(res.body.warnings, [
    'items vs subtotal: the parts add up to 48.9, the document states 47.9.',
    'subtotal + tax + tip vs total: the parts add up to 59.97, the document states 59.',
  ])

  // A tip the model missed shows up as a gap between subtotal + tax and total.
  reply = () => ({ ...answerFor(receipt1), tip: null })
  res = await post(c.key, { text: receipt1.toText() })
  t.notOk('tip' in res.body)
  t.same(res.body.warnings, ['subtotal + tax vs total: the parts add up to 51.97, the document states 59.97.'])

  // Without a subtotal the items, tax and tip are checked against the total.
  reply = () => ({ ...answerFor(receipt2), subtotal: null })
  res = await post(c.key, { text: receipt2.toText() })
  t.same(res.body.warnings, [], '42.25 + 4.00 + 0 + 7.00 = 53.25')
  reply = () => ({ ...answerFor(receipt2), subtotal: null, tip: 9 })
  res = await post(c.key, { text: receipt2.toText() })
  t.same(res.body.warnings, ['items + tax + tip vs total: the parts add up to 55.25, the document states 53.25.'])
  t.same(await app.ledger(c.accountId), { balance: 100 - 4 * PRICE, reserved: 0, ledgerSum: 100 - 4 * PRICE })
})

t.test('category: always one of the list; synonyms mapped, anything else is "other" with a warning', async (t) => {
  const c = await app.customer(100)
  const cases: Array<[unknown, string, string[]]> = [
    ['TRANSPORT', 'transport', []],
    ['Restaurant', 'meals', []],
    ['car-rental', 'transport', []],
    ['spaceship parts', 'other', ['category: "spaceship parts" is not one of the categories; reported as "other".']],
    [null, 'other', ['category: none given; reported as "other".']],
  ]
  for (const [given, category, warnings] of cases) {
    reply = () => ({ ...answerFor(receipt2), category: given })
    const res = await post(c.key, { text: receipt2.toText() })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.category, category, `${given} → ${category}`)
    t.same(res.body.warnings, warnings)
  }
})

t.test('time HH:MM or omitted, dates normalised or omitted, currency ISO 4217 or omitted', async (t) => {
  const c = await app.customer(100)
  const cases: Array<[Record<string, unknown>, Record<string, unknown>, string[]]> = [
    [{ time: '1:05 pm', date: '11/06/2024' }, { time: '13:05', date: '2024-11-06' }, []],
    [{ time: '08.15', date: '2 Jul 2024', currency: '$' }, { time: '08:15', date: '2024-07-02' }, ['currency: "$" is not an ISO 4217 currency code; omitted.']],
    [{ time: '25:99', date: '2024-13-45' }, {}, ['date: "2024-13-45" is not a valid date; omitted.', 'time: "25:99" is not a time of day; omitted.']],
    [{ time: null, date: null, currency: null }, {}, []],
  ]
  for (const [given, want, warnings] of cases) {
    reply = () => ({ ...answerFor(receipt2), ...given })
    const res = await post(c.key, { text: receipt2.toText() })
    t.equal(res.status, 200, res.text)
    for (const k of ['time', 'date']) t.equal(res.body[k], want[k], `${k}: ${given[k]}`)
    if ('currency' in given) t.notOk('currency' in res.body)
    t.same(res.body.warnings, warnings)
  }
})

t.test('card numbers in paymentMethod are masked to their last 4 digits', async (t) => {
  const c = await app.customer(100)
  reply = () => ({ ...answerFor(receipt1), paymentMethod: 'VISA 4111 1111 1111 4242' })
  const res = await post(c.key, { text: receipt1.toText() })
  t.equal(res.body.paymentMethod, 'VISA **** **** **** 4242')
})

t.test('items without an amount or description are left out and said so', async (t) => {
  const c = await app.customer(100)
  reply = () => ({
    ...answerFor(receipt2),
    items: [...receipt2.items, { description: 'Receipt no. 5512', quantity: null, amount: null }, { description: '', quantity: 1, amount: 1 }],
  })
  const res = await post(c.key, { text: receipt2.toText() })
  t.same(res.body.items, receipt2.items)
  t.same(res.body.warnings, ['An item ("Receipt no. 5512") without an amount was left out.', 'An item without a description (amount 1.00) was left out.'])
})

t.test('no merchant: 502 inference_failed, free', async (t) => {
  const c = await app.customer(100)
  reply = () => ({ ...answerFor(receipt1), merchant: null })
  const res = await post(c.key, { text: receipt1.toText() })
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'inference_failed')
  t.same(await app.ledger(c.accountId), untouched(100))
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  const c = await app.customer(100)
  reply = () => answerFor(receipt1)
  const bodies: Array<[string, unknown]> = [
    ['no document', {}],
    ['two documents', { text: 'x', file: pdf('receipt-1') }],
    ['unknown field', { text: 'x', category: 'meals' }],
    ['fileUrl not a URL', { fileUrl: 'receipt.pdf' }],
    ['file.data not base64', { file: { data: 'not base64!', mimeType: 'application/pdf' } }],
    ['text not a string', { text: 42 }],
  ]
  for (const [why, body] of bodies) {
    const res = await post(c.key, body)
    t.equal(res.status, 400, `${why}: ${res.text.slice(0, 200)}`)
    t.equal(res.body?.error?.code, 'invalid_request', why)
  }
  t.same(await app.ledger(c.accountId), untouched(100))
})

t.test('through the fake OpenAI-compatible server: sync, then async with the same result', async (t) => {
  const fake = await startFakeOpenAI({ text: () => answerFor(receipt1) })
  t.teardown(() => fake.close())
  const real = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL), capabilities: [capability], worker: true })
  const c = await real.customer(100)

  const sync = await real.call('/v1/receipt', { key: c.key, body: { file: pdf('receipt-1') } })
  t.equal(sync.status, 200, sync.text)
  t.same(withoutUsage(sync.body), expected(receipt1))
  t.same(sync.body.usage, { credits: PRICE, balanceRemaining: 100 - PRICE })
  const sent = fake.requests.find((r) => r.path === '/v1/responses')?.body
  t.match(JSON.stringify(sent?.input), /Cafe Lumen/, 'extracted text sent')
  t.ok(sent?.text?.format?.schema?.properties?.category, 'structured output requested')

  const accepted = await real.call('/v1/receipt', { key: c.key, body: { file: pdf('receipt-1'), async: true } })
  t.equal(accepted.status, 202, accepted.text)
  const job = await pollJob(real, c.key, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 2 * PRICE })
})
