import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// The mock text model answers unless a subtest moves to the fake OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { funds: 20 })

const job = { job: 'Paint two bedrooms.' }
/** A line as the model gives it: per unit ({description, quantity, unitPrice}) or a lump sum ({description, amount}). */
const line = (description: string, quantity: number | null, unitPrice: number | null, amount: number | null = null) =>
  quantity !== null || unitPrice !== null ? { description, quantity, unitPrice } : { description, amount }
/** The model's answer; `tax` and `currency` are asked for only when the caller gave no rate or currency. */
const model = (lineItems: unknown[], extra: object = {}) => ({
  lineItems,
  tax: null,
  currency: null,
  assumptions: ['Walls in good repair'],
  scopeNotes: null,
  ...extra,
})

t.test('line amounts are quantity × unit price; subtotal and total are added up by code', async (t) => {
  cap.reply(model([line('Labour', 10, 45), line('Paint', 4, 32.99), line('Materials allowance', null, null, 80.5)]))
  const call = await cap.call(job)
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.lineItems, [
    { description: 'Labour', quantity: 10, unitPrice: 45, amount: 450 },
    { description: 'Paint', quantity: 4, unitPrice: 32.99, amount: 131.96 },
    { description: 'Materials allowance', amount: 80.5 },
  ])
  t.equal(res.body.subtotal, 662.46)
  t.equal(res.body.total, 662.46)
  t.notOk('tax' in res.body)
  t.notOk('warnings' in res.body, 'nothing to correct: the model gives no amount for a line priced per unit')

  cap.reply(model([line('A', 3, 0.1), line('B', 1, 0.2)], { tax: 0.05 }))
  const exact = await cap.call(job)
  t.equal(exact.res.body.subtotal, 0.5, 'sums in cents')
  t.equal(exact.res.body.total, 0.55, 'total = subtotal + tax')
})

t.test('a line priced per unit and as a lump sum at once is outside the schema: asked once more', async (t) => {
  cap.reply(model([{ description: 'Labour', quantity: 10, unitPrice: 45, amount: 400 }]), model([line('Labour', 10, 45)]))
  const { res } = await cap.call(job)
  t.equal(res.status, 200, res.text)
  t.same(res.body.lineItems, [{ description: 'Labour', quantity: 10, unitPrice: 45, amount: 450 }])
  t.equal(cap.prompts.length, 2)
})

t.test("tax from the caller's rate is computed by code, and not asked of the model", async (t) => {
  const { tax: _tax, ...noTax } = model([line('Labour', 10, 45)])
  cap.reply(noTax)
  const { res } = await cap.call({ ...job, taxRatePct: 8.25 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.tax, 37.13)
  t.equal(res.body.total, 487.13)
  cap.reply(model([line('Labour', 10, 45)], { tax: 50 }))
  await cap.expectRefused(
    t,
    { ...job, taxRatePct: 8.25 },
    { status: 502, code: 'inference_failed', why: 'a tax the schema does not ask for' },
  )
})

t.test("a unit price that differs from the caller's rate is reported, not changed", async (t) => {
  cap.reply(model([line('Labour - prep and paint', 10, 40), line('Call-out fee', 1, 60), line('Skip hire', 1, 200)]))
  const rates = [
    { description: 'Labour', unit: 'hour', unitPrice: 45 },
    { description: 'Call-out fee', unitPrice: 60 },
  ]
  const { res } = await cap.call({ ...job, rates })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.lineItems[0].unitPrice, 40)
  t.same(res.body.warnings, ['Line 1 (Labour - prep and paint): unit price 40, but the rate for "Labour" is 45.'])
})

t.test("the caller's currency wins (the model is not asked); the model's is an ISO-style code", async (t) => {
  const { currency: _c, ...noCurrency } = model([line('Labour', 1, 10)])
  cap.reply(noCurrency)
  t.equal((await cap.call({ ...job, currency: 'usd' })).res.body.currency, 'USD')
  cap.reply(model([line('Labour', 1, 10)], { currency: 'eur' }))
  t.equal((await cap.call(job)).res.body.currency, 'EUR')
  cap.reply(model([line('Labour', 1, 10)], { currency: 'dollars' }), model([line('Labour', 1, 10)]))
  const retried = await cap.call(job)
  t.equal(retried.res.status, 200, 'a currency outside the schema is asked for once more')
  t.notOk('currency' in retried.res.body)
})

t.test('answers outside the schema are asked for once more, then failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['no line items', model([])],
    ['a line with nothing to price it', model([line('Labour', 2, null)])],
    ['a line without a description', model([line('  ', 1, 10)])],
    ['a negative unit price', model([line('Discount', 1, -500), line('Labour', 1, 10)])],
    ['a negative quantity', model([line('Labour', -1, 10)])],
    ['a string amount', model([line('Labour', null, null, '10' as never)])],
  ] as const) {
    cap.reply(reply)
    await cap.expectRefused(t, job, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: sent back once`)
  }
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { job: '' },
    { job: 'x'.repeat(20_001) },
    { ...job, currency: 'EURO' },
    { ...job, taxRatePct: 101 },
    { ...job, taxRatePct: -1 },
    { ...job, rates: [{ description: 'Labour' }] },
    { ...job, rates: [{ description: 'Labour', unitPrice: -5 }] },
    { ...job, rates: 42 },
    { ...job, rates: Array.from({ length: 201 }, () => ({ description: 'x', unitPrice: 1 })) },
    { ...job, pastQuotes: Array.from({ length: 11 }, () => 'q') },
    { ...job, discount: 5 },
  ],
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const { tax: _t, currency: _c, ...answer } = model([line('Labour', 2, 85), line('Call-out', 1, 60)], { scopeNotes: 'Taps only.' })
  await cap.useFake({ text: () => answer })
  const call = await cap.call({ ...job, currency: 'USD', taxRatePct: 10, pastQuotes: ['Paint 1 room: $900'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    lineItems: [
      { description: 'Labour', quantity: 2, unitPrice: 85, amount: 170 },
      { description: 'Call-out', quantity: 1, unitPrice: 60, amount: 60 },
    ],
    subtotal: 230,
    tax: 23,
    total: 253,
    currency: 'USD',
    assumptions: ['Walls in good repair'],
    scopeNotes: 'Taps only.',
    usage: { credits: 8, balanceRemaining: 12, livemode: true },
  })
})
