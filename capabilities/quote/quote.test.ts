import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

// The mock text model answers unless a subtest moves to the fake OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { funds: 20 })

const job = { job: 'Paint two bedrooms.' }
const line = (description: string, quantity: number | null, unitPrice: number | null, amount: number | null) => ({
  description,
  quantity,
  unitPrice,
  amount,
})
const model = (lineItems: unknown[], extra: object = {}) => ({
  lineItems,
  tax: null,
  currency: null,
  assumptions: ['Walls in good repair'],
  scopeNotes: null,
  ...extra,
})

t.test('line amounts are quantity × unit price; subtotal and total are added up by code', async (t) => {
  cap.reply(
    model([
      line('Labour', 10, 45, 400), // the model multiplied wrong
      line('Paint', 4, 32.99, null), // and left one out
      line('Materials allowance', null, null, 80.5), // a lump sum
    ]),
  )
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
  t.equal(res.body.warnings.length, 1, 'the correction is reported, not silent')
  t.match(res.body.warnings[0], /Line 1 \(Labour\): 10 × 45 = 450; the model wrote 400/)

  cap.reply(model([line('A', 3, 0.1, 0.3), line('B', 1, 0.2, 0.2)], { tax: 0.05 }))
  const exact = await cap.call(job)
  t.equal(exact.res.body.subtotal, 0.5, 'sums in cents')
  t.equal(exact.res.body.total, 0.55, 'total = subtotal + tax')
  t.notOk('warnings' in exact.res.body, 'no warnings when everything adds up')
})

t.test("tax from the caller's rate is computed by code", async (t) => {
  cap.reply(model([line('Labour', 10, 45, 450)], { tax: 50 }))
  const { res } = await cap.call({ ...job, taxRatePct: 8.25 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.tax, 37.13)
  t.equal(res.body.total, 487.13)
  t.match(res.body.warnings, [/tax: 8.25% of 450 is 37.13; the model wrote 50/])
})

t.test("a unit price that differs from the caller's rate is reported, not changed", async (t) => {
  cap.reply(model([line('Labour - prep and paint', 10, 40, 400), line('Call-out fee', 1, 60, 60), line('Skip hire', 1, 200, 200)]))
  const rates = [
    { description: 'Labour', unit: 'hour', unitPrice: 45 },
    { description: 'Call-out fee', unitPrice: 60 },
  ]
  const { res } = await cap.call({ ...job, rates })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.lineItems[0].unitPrice, 40)
  t.same(res.body.warnings, ['Line 1 (Labour - prep and paint): unit price 40, but the rate for "Labour" is 45.'])
})

t.test("the caller's currency wins; the model's is kept only as an ISO code", async (t) => {
  cap.reply(model([line('Labour', 1, 10, 10)], { currency: 'eur' }))
  t.equal((await cap.call({ ...job, currency: 'usd' })).res.body.currency, 'USD')
  t.equal((await cap.call(job)).res.body.currency, 'EUR')
  cap.reply(model([line('Labour', 1, 10, 10)], { currency: 'dollars' }))
  t.notOk('currency' in (await cap.call(job)).res.body)
})

t.test('answers code cannot repair are failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['no line items', model([])],
    ['a line with nothing to price it', model([line('Labour', 2, null, null)])],
    ['a line without a description', model([line('  ', 1, 10, 10)])],
    ['a quote below zero', model([line('Discount', 1, -500, -500), line('Labour', 1, 10, 10)])],
    ['a negative quantity', model([line('Labour', -1, 10, -10)])],
    ['a string amount', model([line('Labour', null, null, '10' as never)])],
  ] as const) {
    cap.reply(reply)
    await cap.expectRefused(t, job, { status: 502, code: 'inference_failed', why })
  }
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  cap.reply(model([line('Labour', 1, 10, 10)]))
  for (const body of [
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
  ]) {
    await cap.expectRefused(t, body)
  }
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: () => model([line('Labour', 2, 85, 170), line('Call-out', 1, 60, 60)], { scopeNotes: 'Taps only.' }) })
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
    usage: { credits: 8, balanceRemaining: 12 },
  })
})
