import t, { type Test as Tap } from 'tap'
import { receipt1, receipt2, receiptFields, type ReceiptData } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf, withoutUsage } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundings, supported, withoutEvidence } from '../../devkit/evidence.ts'
import manifest from './manifest.ts'
import { GROUNDED } from './schema.ts'

const PRICE = 6

/** A well-behaved model answer for a known receipt. */
const sup = (a: Record<string, unknown>, r: { toPages(): string[] } = receipt1) =>
  supported(a, r.toPages(), { items: ['description', 'amount'] }, GROUNDED)
const answerFor = (r: ReceiptData & { toPages(): string[] }) => sup(receiptFields(r), r)

/** Every value carries evidence code found. */
function allGrounded(t: Tap, body: unknown) {
  t.same(
    groundings(body).filter((g) => !g.grounded),
    [],
    'every value grounded',
  )
}

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

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 100 })

t.test('a sloppy but correct answer comes back normalised, charged once', async (t) => {
  cap.reply(
    sup({
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
    }),
  )
  const call = await cap.call({ text: receipt1.toText() })
  cap.expectCharged(t, call)
  t.same(withoutEvidence(withoutUsage(call.res.body)), expected(receipt1))
  allGrounded(t, call.res.body)
})

t.test('a PDF given inline: text extracted locally and the file sent along', async (t) => {
  cap.reply(answerFor(receipt2))
  const { res } = await cap.call({ file: pdf('receipt-2') })
  t.equal(res.status, 200, res.text)
  t.same(withoutEvidence(withoutUsage(res.body)), expected(receipt2))
  allGrounded(t, res.body)
  const prompt = cap.prompts.at(-1)
  t.match(prompt, /Metro Taxi Co\./, 'the extracted text reaches the model')
  t.match(prompt, /application\/pdf/, 'the PDF itself is sent')
  t.match(prompt, /exactly one of: meals, travel, lodging, transport/, 'the category list is in the prompt')
})

t.test('sums including the tip are checked and reported, never fixed', async (t) => {
  const c = await cap.customer()
  const items = receipt1.items.map((i) => ({ ...i }))
  items[2]!.amount = 11.5
  cap.reply(sup({ ...answerFor(receipt1), items, total: 59 }))
  let res = await cap.post(c, { text: receipt1.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.total, 59, 'the stated total is kept')
  t.equal(res.body.items[2].amount, 11.5, 'the stated item amount is kept')
  t.same(res.body.warnings, [
    'items vs subtotal: the parts add up to 48.9, the document states 47.9.',
    'subtotal + tax + tip vs total: the parts add up to 59.97, the document states 59.',
  ])
  t.equal(res.body.grounding.subtotal.confidence, 0.2, 'issue 29: the subtotal the items contradict is capped at 0.2')
  t.same(res.body.grounding.total, { evidence: null, grounded: false, confidence: 0.2 }, 'the total: not in the receipt, and wrong')
  t.same(res.body.items[2], { ...res.body.items[2], evidence: null, grounded: false, confidence: 0.5 }, 'an amount not printed')

  // A tip the model missed shows up as a gap between subtotal + tax and total.
  cap.reply({ ...answerFor(receipt1), tip: null })
  res = await cap.post(c, { text: receipt1.toText() })
  t.notOk('tip' in res.body)
  t.same(res.body.warnings, ['subtotal + tax vs total: the parts add up to 51.97, the document states 59.97.'])

  // Without a subtotal the items, tax and tip are checked against the total.
  cap.reply({ ...answerFor(receipt2), subtotal: null })
  res = await cap.post(c, { text: receipt2.toText() })
  t.same(res.body.warnings, [], '42.25 + 4.00 + 0 + 7.00 = 53.25')
  cap.reply({ ...answerFor(receipt2), subtotal: null, tip: 9 })
  res = await cap.post(c, { text: receipt2.toText() })
  t.same(res.body.warnings, ['items + tax + tip vs total: the parts add up to 55.25, the document states 53.25.'])
  t.same(await cap.app.ledger(c.accountId), { balance: 100 - 4 * PRICE, reserved: 0, ledgerSum: 100 - 4 * PRICE })
})

t.test('category: always one of the list; synonyms mapped, anything else is "other" with a warning', async (t) => {
  const c = await cap.customer()
  const cases: Array<[unknown, string, string[]]> = [
    ['TRANSPORT', 'transport', []],
    ['Restaurant', 'meals', []],
    ['car-rental', 'transport', []],
    ['spaceship parts', 'other', ['category: "spaceship parts" is not one of the categories; reported as "other".']],
    [null, 'other', ['category: none given; reported as "other".']],
  ]
  for (const [given, category, warnings] of cases) {
    cap.reply({ ...answerFor(receipt2), category: given })
    const res = await cap.post(c, { text: receipt2.toText() })
    t.equal(res.status, 200, res.text)
    t.equal(res.body.category, category, `${JSON.stringify(given)} → ${category}`)
    t.same(res.body.warnings, warnings)
  }
})

t.test('time HH:MM or omitted, dates normalised or omitted, currency ISO 4217 or omitted', async (t) => {
  const c = await cap.customer()
  const cases: Array<[Record<string, unknown>, Record<string, unknown>, string[]]> = [
    [{ time: '1:05 pm', date: '11/06/2024' }, { time: '13:05', date: '2024-11-06' }, []],
    [
      { time: '08.15', date: '2 Jul 2024', currency: '$' },
      { time: '08:15', date: '2024-07-02' },
      ['currency: "$" is not an ISO 4217 currency code; omitted.'],
    ],
    [
      { time: '25:99', date: '2024-13-45' },
      {},
      ['date: "2024-13-45" is not a valid date; omitted.', 'time: "25:99" is not a time of day; omitted.'],
    ],
    [{ time: null, date: null, currency: null }, {}, []],
  ]
  for (const [given, want, warnings] of cases) {
    cap.reply({ ...answerFor(receipt2), ...given })
    const res = await cap.post(c, { text: receipt2.toText() })
    t.equal(res.status, 200, res.text)
    for (const k of ['time', 'date']) t.equal(res.body[k], want[k], `${k}: ${JSON.stringify(given[k])}`)
    if ('currency' in given) t.notOk('currency' in res.body)
    t.same(res.body.warnings, warnings)
  }
})

t.test('card numbers in paymentMethod are masked to their last 4 digits', async (t) => {
  cap.reply({ ...answerFor(receipt1), paymentMethod: 'VISA 4111 1111 1111 4242' })
  const { res } = await cap.call({ text: receipt1.toText() })
  t.equal(res.body.paymentMethod, 'VISA **** **** **** 4242')
})

t.test('items without an amount or description are left out and said so', async (t) => {
  cap.reply({
    ...answerFor(receipt2),
    items: [
      ...receipt2.items,
      { description: 'Receipt no. 5512', quantity: null, amount: null },
      { description: '', quantity: 1, amount: 1 },
    ],
  })
  const { res } = await cap.call({ text: receipt2.toText() })
  t.same(withoutEvidence(res.body.items), receipt2.items)
  t.same(res.body.warnings, [
    'An item ("Receipt no. 5512") without an amount was left out.',
    'An item without a description (amount 1.00) was left out.',
  ])
})

t.test('no merchant: 502 inference_failed, free', async (t) => {
  cap.reply({ ...answerFor(receipt1), merchant: null })
  await cap.expectRefused(t, { text: receipt1.toText() }, { status: 502, code: 'inference_failed', why: 'no merchant' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no document', {}],
    ['two documents', { text: 'x', file: pdf('receipt-1') }],
    ['unknown field', { text: 'x', category: 'meals' }],
    ['fileUrl not a URL', { fileUrl: 'receipt.pdf' }],
    ['file.data not base64', { file: { data: 'not base64!', mimeType: 'application/pdf' } }],
    ['text not a string', { text: 42 }],
  ],
})

t.test('through the fake OpenAI-compatible server: sync, then async with the same result', async (t) => {
  const fake = await cap.useFake({ text: () => answerFor(receipt1) })
  const call = await cap.call({ file: pdf('receipt-1') })
  cap.expectCharged(t, call)
  const { res: sync, customer: c } = call
  t.same(withoutEvidence(withoutUsage(sync.body)), expected(receipt1))
  allGrounded(t, sync.body)
  const sent = fake.requests.find((r) => r.path === '/v1/responses')?.body
  t.match(JSON.stringify(sent?.input), /Cafe Lumen/, 'extracted text sent')
  t.ok(sent?.text?.format?.schema?.properties?.category, 'structured output requested')

  const accepted = await cap.post(c, { file: pdf('receipt-1'), async: true })
  t.equal(accepted.status, 202, accepted.text)
  const job = await cap.job(c, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 2 * PRICE, livemode: true })
})
