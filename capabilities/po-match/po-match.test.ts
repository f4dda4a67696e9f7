import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { EXTRACTION_MARK, PAIRING_MARK } from './handler.ts'
import manifest from './manifest.ts'
import { parseDocument, textLine } from './test/fake-model-reader.ts'

// The mock text model reads the documents with the test reader (a stand-in for the model's reading), or answers
// from `pairing` or `advice`, by which prompt it gets, unless a subtest moves to the fake OpenAI-compatible server.
let pairing: Record<string, unknown> = { purchaseOrderPairs: [], receiptPairs: [] }
let advice: unknown = { recommendation: 'Approve for payment.', notes: [] }
/** The extraction answer for the documents in a prompt, as the test reader reads them. */
function readDocuments(text: string) {
  const doc = (tag: 'invoice' | 'purchaseOrder' | 'receipt') => {
    const m = new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)
    if (!m) return {}
    const read = parseDocument(m[1]!, tag)
    // As the model is asked: a document that lists no separate items is one line for the whole.
    const whole = read.total ?? read.subtotal
    if (!read.lines.length && whole !== null)
      read.lines = [{ description: 'Total', sku: null, quantity: null, unitPrice: null, amount: whole }]
    return { [tag]: read }
  }
  return { ...doc('invoice'), ...doc('purchaseOrder'), ...doc('receipt') }
}
const userText = (prompt: string) =>
  (JSON.parse(prompt) as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === 'user')
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : (m.content as Array<{ text?: string }>).map((p) => p.text ?? '')))
    .join('\n')
/** The pairing answer with the lists the prompt asks for (the schema has only those). */
const pairingFor = (prompt: string) =>
  Object.fromEntries(
    Object.entries(pairing).filter(([k]) => prompt.includes(k === 'receiptPairs' ? 'Receipt lines:' : 'Purchase order lines:')),
  )
const mockModel = (p: string) =>
  p.includes(EXTRACTION_MARK) ? readDocuments(userText(p)) : p.includes(PAIRING_MARK) ? pairingFor(p) : advice
const cap = await capabilityHarness(t, manifest, { funds: 20 })
cap.reply(mockModel)
const prompts = cap.prompts

const PO = 'Purchase order PO-4411\nWidget x 10 @ 2.50 = 25.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 49.00'
const INVOICE = 'Invoice INV-778\nPO Number: PO-4411\nWidget x 10 @ 2.50 = 25.00\nGadget x 2 @ 12.00 = 24.00\nTotal: 49.00'

const fields = (res: any) => res.body.discrepancies.map((d: any) => `${d.field}/${d.against}/${d.severity}`)

t.test('the test reader (the stand-in model) reads the common forms', async (t) => {
  t.match(textLine('Widget x 10 @ 2.50 = 25.00'), { description: 'Widget', quantity: 10, unitPrice: 2.5, amount: 25 })
  t.match(textLine('10 x Widget @ $2.50'), { description: 'Widget', quantity: 10, unitPrice: 2.5, amount: null })
  t.match(textLine('Consulting 10 hrs @ 150/hr = 1,500.00'), { description: 'Consulting', quantity: 10, unitPrice: 150, amount: 1500 })
  t.match(textLine('Widget qty 10 price 2.50 amount 25.00'), { quantity: 10, unitPrice: 2.5, amount: 25 })
  t.match(textLine('Widget - 8 units received'), { description: 'Widget', quantity: 8 })
  t.match(textLine('Installation ...... $150.00'), { description: 'Installation', quantity: null, amount: 150 })
  t.equal(textLine('Invoice #12345')?.quantity ?? null, null)
  const table = parseDocument(
    'Description | Qty | Unit Price | Amount\nWidget | 10 | 2.50 | 25.00\nSubtotal: 25.00\nTax (8%): 2.00\nTotal: USD 27.00',
  )
  t.match(table, {
    lines: [{ description: 'Widget', quantity: 10, unitPrice: 2.5, amount: 25 }],
    subtotal: 25,
    tax: 2,
    total: 27,
    currency: 'USD',
  })
  t.match(parseDocument('Widget, 10, 2.50, 25.00').lines, [{ description: 'Widget', quantity: 10, unitPrice: 2.5, amount: 25 }])
  const json = parseDocument(
    JSON.stringify({
      poNumber: 'PO-1',
      currency: 'usd',
      total: 25,
      lineItems: [{ description: 'Widget', quantity: '10', unitPrice: '$2.50', amount: 25 }],
      usage: { credits: 8 },
    }),
  )
  t.match(json, {
    poNumber: 'PO-1',
    currency: 'USD',
    total: 25,
    lines: [{ description: 'Widget', quantity: 10, unitPrice: 2.5, amount: 25 }],
  })
  t.equal(parseDocument('{"number": "INV-9", "total": 5}').poNumber, null, "an invoice's own number is no PO reference")
  t.equal(parseDocument('{"number": "PO-9", "total": 5}', 'purchaseOrder').poNumber, 'PO-9')
})

t.test('identical documents match; a difference within tolerance is reported as low and still matches', async (t) => {
  const call = await cap.call({ invoice: INVOICE, purchaseOrder: PO, receipt: 'Widget - 10 units\nGadget - 2 units' })
  cap.expectCharged(t, call)
  const { res } = call
  t.equal(res.body.status, 'matched')
  t.same(res.body.discrepancies, [])
  t.same(res.body.lineCounts, { invoice: 2, purchaseOrder: 2, receipt: 2 })
  t.equal(res.body.tolerancePct, 2)

  const within = await cap.call({
    invoice: INVOICE.replace('Widget x 10 @ 2.50 = 25.00', 'Widget x 10 @ 2.54 = 25.40').replace('49.00', '49.40'),
    purchaseOrder: PO,
  })
  t.equal(within.res.body.status, 'matched')
  t.match(within.res.body.discrepancies, [
    {
      field: 'unitPrice',
      item: 'Widget',
      invoice: 2.54,
      purchaseOrder: 2.5,
      difference: 0.04,
      differencePct: 1.6,
      severity: 'low',
      note: /Within the 2% tolerance/,
    },
    { field: 'amount', difference: 0.4, severity: 'low' },
    { field: 'subtotal', difference: 0.4, severity: 'low' },
  ])
})

t.test('billing more than ordered or received is mismatched; billing less is partial', async (t) => {
  const over = await cap.call({
    invoice: INVOICE.replace('Widget x 10 @ 2.50 = 25.00', 'Widget x 12 @ 2.50 = 30.00').replace('49.00', '54.00'),
    purchaseOrder: PO,
  })
  t.equal(over.res.body.status, 'mismatched')
  t.match(over.res.body.discrepancies[0], {
    field: 'quantity',
    item: 'Widget',
    against: 'purchaseOrder',
    invoice: 12,
    purchaseOrder: 10,
    difference: 2,
    differencePct: 20,
    severity: 'high',
  })

  const under = await cap.call({
    invoice: INVOICE.replace('Widget x 10 @ 2.50 = 25.00', 'Widget x 8 @ 2.50 = 20.00').replace('49.00', '44.00'),
    purchaseOrder: PO,
  })
  t.equal(under.res.body.status, 'partial')
  t.same(fields(under.res), ['quantity/purchaseOrder/medium', 'amount/purchaseOrder/medium', 'subtotal/purchaseOrder/medium'])
  t.equal(under.res.body.discrepancies[0].difference, -2)

  const notBilled = await cap.call({ invoice: 'PO PO-4411\nWidget x 10 @ 2.50 = 25.00\nTotal: 25.00', purchaseOrder: PO })
  t.equal(notBilled.res.body.status, 'partial')
  t.match(notBilled.res.body.discrepancies[0], {
    field: 'amount',
    item: 'Gadget',
    purchaseOrder: 24,
    difference: -24,
    severity: 'medium',
    note: /not billed/,
  })

  const notReceived = await cap.call({ invoice: INVOICE, purchaseOrder: PO, receipt: 'Widget - 7 units' })
  t.equal(notReceived.res.body.status, 'mismatched')
  t.match(notReceived.res.body.discrepancies, [
    { field: 'quantity', item: 'Widget', against: 'receipt', invoice: 10, purchaseOrder: 10, receipt: 7, difference: 3, severity: 'high' },
    { field: 'quantity', item: 'Gadget', against: 'receipt', invoice: 2, difference: 2, severity: 'high', note: /not on the receipt/ },
  ])

  const extra = await cap.call({ invoice: INVOICE.replace('Total: 49.00', 'Rush fee 15.00\nTotal: 64.00'), purchaseOrder: PO })
  t.equal(extra.res.body.status, 'mismatched')
  t.match(extra.res.body.discrepancies[0], {
    field: 'amount',
    item: 'Rush fee',
    invoice: 15,
    difference: 15,
    severity: 'high',
    note: /not on the purchase order/,
  })
})

t.test("the invoice's own arithmetic, PO number and currency are checked", async (t) => {
  const arithmetic = await cap.call({ invoice: INVOICE.replace('= 25.00', '= 27.00'), purchaseOrder: PO })
  t.match(arithmetic.res.body.discrepancies[0], { field: 'amount', against: 'calculation', invoice: 27, difference: 2, severity: 'high' })
  t.same(fields(arithmetic.res), [
    'amount/calculation/high', // 10 × 2.50 is 25.00, not 27.00
    'total/calculation/medium', // the lines come to 51.00, the stated total is 49.00
    'amount/purchaseOrder/high',
    'subtotal/purchaseOrder/high',
  ])

  const otherPo = await cap.call({ invoice: INVOICE.replace('PO Number: PO-4411', 'PO Number: PO-4412'), purchaseOrder: PO })
  t.equal(otherPo.res.body.status, 'mismatched')
  t.match(otherPo.res.body.discrepancies, [{ field: 'poNumber', invoice: 'PO-4412', purchaseOrder: 'PO-4411', severity: 'high' }])
  t.notOk('difference' in otherPo.res.body.discrepancies[0], 'no numeric size for a reference')

  const currency = await cap.call({ invoice: `${INVOICE}\nCurrency: EUR`, purchaseOrder: `${PO}\nCurrency: USD` })
  t.match(currency.res.body.discrepancies, [{ field: 'currency', invoice: 'EUR', purchaseOrder: 'USD', severity: 'high' }])
})

t.test('tolerancePct decides what is within tolerance', async (t) => {
  const invoice = INVOICE.replace('Widget x 10 @ 2.50 = 25.00', 'Widget x 10 @ 2.60 = 26.00').replace('49.00', '50.00')
  t.equal((await cap.call({ invoice, purchaseOrder: PO })).res.body.status, 'mismatched', '4% over with the default 2%')
  const loose = await cap.call({ invoice, purchaseOrder: PO, tolerancePct: 5 })
  t.equal(loose.res.body.status, 'matched')
  t.ok(loose.res.body.discrepancies.every((d: any) => d.severity === 'low'))
  const strict = await cap.call({
    invoice: INVOICE.replace('@ 2.50 = 25.00', '@ 2.51 = 25.10').replace('49.00', '49.10'),
    purchaseOrder: PO,
    tolerancePct: 0,
  })
  t.equal(strict.res.body.status, 'mismatched', 'a cent over with no tolerance')
})

t.test('JSON from /v1/invoice against a text PO', async (t) => {
  const invoice = JSON.stringify({
    vendor: { name: 'ACME' },
    invoiceNumber: 'INV-778',
    poNumber: 'PO-4411',
    currency: 'USD',
    subtotal: 49,
    tax: 0,
    total: 49,
    lineItems: [
      { description: 'Widget', quantity: 10, unitPrice: 2.5, amount: 25 },
      { description: 'Gadgets', quantity: 2, unitPrice: 12, amount: 24 },
    ],
  })
  const { res } = await cap.call({ invoice, purchaseOrder: PO })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.status, 'matched', '"Gadgets" pairs with "Gadget" by code')
  t.same(res.body.discrepancies, [])
})

t.test('the model may pair lines code could not, only among the lines offered (enums in its schema)', async (t) => {
  const invoice = 'Hex bolt M8 x 100 @ 0.10 = 10.00\nWidget x 10 @ 2.50 = 25.00'
  const purchaseOrder = 'Fastener, hexagonal, 8mm x 100 @ 0.10 = 10.00\nWidget x 10 @ 2.50 = 25.00\nSpare part x 1 @ 5.00 = 5.00'
  prompts.length = 0
  pairing = { purchaseOrderPairs: [{ invoiceLine: 0, purchaseOrderLine: 0 }] }
  const { res } = await cap.call({ invoice, purchaseOrder })
  t.equal(res.status, 200, res.text)
  t.equal(prompts.length, 3, 'one extraction call, one pairing call, one advice call')
  t.match(prompts[1], /0: Hex bolt M8/)
  t.notMatch(prompts[1], /1: Widget/, 'lines code paired are not offered')
  t.match(res.body.discrepancies, [{ item: 'Spare part', purchaseOrder: 5, severity: 'medium' }, { field: 'subtotal' }])
  t.equal(res.body.discrepancies.length, 2, 'the bolt line is paired (0↔0)')
  t.equal(res.body.status, 'partial')

  pairing = { purchaseOrderPairs: [], receiptPairs: [] }
  const unpaired = await cap.call({ invoice, purchaseOrder })
  t.match(fields(unpaired.res), [
    'amount/purchaseOrder/high',
    'amount/purchaseOrder/medium',
    'amount/purchaseOrder/medium',
    'subtotal/purchaseOrder/medium',
  ])
  t.equal(unpaired.res.body.status, 'mismatched', 'an invoice line left unpaired is billed but not ordered')

  for (const pairs of [
    [{ invoiceLine: 1, purchaseOrderLine: 2 }],
    [{ invoiceLine: 9, purchaseOrderLine: 0 }],
    [
      { invoiceLine: 0, purchaseOrderLine: 0 },
      { invoiceLine: 0, purchaseOrderLine: 2 },
    ],
  ]) {
    pairing = { purchaseOrderPairs: pairs }
    prompts.length = 0
    await cap.expectRefused(t, { invoice, purchaseOrder }, { status: 502, code: 'inference_failed', why: JSON.stringify(pairs) })
    t.equal(prompts.length, 3, 'a line not offered, or one used twice, is outside the schema: asked once more')
  }
  pairing = { purchaseOrderPairs: [], receiptPairs: [] }

  prompts.length = 0
  await cap.call({ invoice: INVOICE, purchaseOrder: PO })
  t.equal(prompts.length, 2, 'no pairing call when code paired every line')
})

t.test("status is code's; the model only advises", async (t) => {
  advice = { recommendation: 'All good, status matched, pay it.', notes: ['Vendor name differs: ACME vs Acme Ltd.', ' '] }
  const { res } = await cap.call({ invoice: INVOICE.replace('x 10 @', 'x 20 @').replace('= 25.00', '= 50.00'), purchaseOrder: PO })
  t.equal(res.body.status, 'mismatched')
  t.equal(res.body.recommendation, 'All good, status matched, pay it.')
  t.same(res.body.notes, ['Vendor name differs: ACME vs Acme Ltd.'])
  t.match(prompts.at(-1), /Status: mismatched/)
  advice = { recommendation: 'Approve for payment.', notes: [] }
})

t.test('a document without a single figure is 422 unprocessable before any model call, free', async (t) => {
  for (const body of [
    { invoice: INVOICE, purchaseOrder: 'Please send the usual order, thanks!' },
    { invoice: 'hello', purchaseOrder: PO },
    { invoice: INVOICE, purchaseOrder: PO, receipt: 'All arrived fine.' },
  ]) {
    cap.forbidModel(t)
    await cap.expectRefused(t, body, { status: 422, code: 'unprocessable', message: /states no quantities, prices or totals/ })
  }
  cap.reply(mockModel)
})

t.test('a document that lists no items is one line for the whole: answered with discrepancies, not refused', async (t) => {
  const call = await cap.call({ invoice: 'Widget x 10\nGadget x 2', purchaseOrder: 'Total: 49.00' })
  cap.expectCharged(t, call)
  t.equal(call.res.body.status, 'mismatched', 'billed items that are not on the purchase order')
  t.same(call.res.body.lineCounts, { invoice: 2, purchaseOrder: 1 })
  t.ok(fields(call.res).includes('amount/purchaseOrder/medium'), 'the ordered whole is not billed as such')
})

t.test('model answers that break the promises are failed calls, free', async (t) => {
  for (const reply of [
    { recommendation: '  ', notes: [] },
    { recommendation: 'ok' },
    { recommendation: 'ok', notes: [], status: 'matched' },
  ]) {
    advice = reply
    await cap.expectRefused(
      t,
      { invoice: INVOICE, purchaseOrder: PO },
      { status: 502, code: 'inference_failed', why: JSON.stringify(reply) },
    )
  }
  advice = { recommendation: 'Approve for payment.', notes: [] }
  pairing = { purchaseOrderPairs: 'all of them' }
  await cap.expectRefused(
    t,
    { invoice: 'Thing x 1 @ 1.00', purchaseOrder: 'Other x 1 @ 1.00' },
    { status: 502, code: 'inference_failed', why: 'a pairing answer that fails its schema' },
  )
  pairing = { purchaseOrderPairs: [], receiptPairs: [] }
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { invoice: INVOICE },
    { purchaseOrder: PO },
    { invoice: '', purchaseOrder: PO },
    { invoice: { total: 1 }, purchaseOrder: PO },
    { invoice: INVOICE, purchaseOrder: PO, tolerancePct: -1 },
    { invoice: INVOICE, purchaseOrder: PO, tolerancePct: 101 },
    { invoice: INVOICE, purchaseOrder: PO, tolerancePct: '2' },
    { invoice: INVOICE, purchaseOrder: PO, receipt: '' },
    { invoice: 'x'.repeat(500_001), purchaseOrder: PO },
    { invoice: INVOICE, purchaseOrder: PO, vendor: 'ACME' },
  ],
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({
    text: (req) =>
      req.system.includes(EXTRACTION_MARK)
        ? readDocuments(req.prompt)
        : { recommendation: 'Hold: ask for a credit note for 2 widgets.', notes: [] },
  })
  const before = fake.requests.length
  const call = await cap.call({
    invoice: INVOICE.replace('Widget x 10 @ 2.50 = 25.00', 'Widget x 12 @ 2.50 = 30.00').replace('49.00', '54.00'),
    purchaseOrder: PO,
    receipt: 'Widget - 10 units\nGadget - 2 units',
  })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    ...(cap.app.services.capabilities.get(cap.name)!.example.response as object),
    recommendation: 'Hold: ask for a credit note for 2 widgets.',
    usage: { credits: 10, balanceRemaining: 10, livemode: true },
  })
  t.equal(fake.requests.length - before, 2, 'two model calls, extraction and advice: code paired every line')
})

t.test('any layout: the model reads the documents, code compares every number and decides the status (issue 15)', async (t) => {
  const doc = (lines: Array<[string, number | null, number | null, number | null]>, extra: object = {}) => ({
    lines: lines.map(([description, quantity, unitPrice, amount]) => ({ description, sku: null, quantity, unitPrice, amount })),
    ...{ subtotal: null, tax: null, total: null, currency: null, poNumber: null, ...extra },
  })
  const purchaseOrder = 'PO-77\nWidgets: 10 at 5.00 each (50.00)'
  const poRead = doc([['Widgets', 10, 5, 50]], { poNumber: 'PO-77' })
  const cases: Array<[string, string, object, string, string[]]> = [
    ['the example', 'Invoice INV-1: 10 widgets at 5.00 = 50.00', doc([['widgets', 10, 5, 50]]), 'matched', []],
    [
      'tab-separated',
      'Item\tQty\tPrice\tAmount\nWidgets\t12\t5.00\t60.00\nTotal\t\t\t60.00',
      doc([['Widgets', 12, 5, 60]], { total: 60 }),
      'mismatched',
      ['quantity/purchaseOrder/high', 'amount/purchaseOrder/high', 'subtotal/purchaseOrder/high'],
    ],
    [
      'prose',
      'For PO-77 we shipped eight widgets at five dollars apiece, forty dollars altogether.',
      doc([['widgets', 8, 5, 40]], { poNumber: 'PO-77' }),
      'partial',
      ['quantity/purchaseOrder/medium', 'amount/purchaseOrder/medium', 'subtotal/purchaseOrder/medium'],
    ],
    [
      'JSON from /v1/invoice',
      JSON.stringify({
        vendor: { name: 'ACME' },
        invoiceNumber: 'INV-9',
        poNumber: 'PO-77',
        currency: 'USD',
        subtotal: 50,
        total: 50,
        lineItems: [{ description: 'Widgets', quantity: 10, unitPrice: 5, amount: 50 }],
      }),
      doc([['Widgets', 10, 5, 50]], { poNumber: 'PO-77', currency: 'USD', subtotal: 50, total: 50 }),
      'matched',
      [],
    ],
  ]
  for (const [why, invoice, invoiceRead, status, found] of cases) {
    cap.reply((p: string) => (p.includes(EXTRACTION_MARK) ? { invoice: invoiceRead, purchaseOrder: poRead } : advice))
    const call = await cap.call({ invoice, purchaseOrder })
    cap.expectCharged(t, call)
    t.equal(call.res.body.status, status, `${why}: ${status}`)
    t.same(fields(call.res), found, `${why}: discrepancies`)
    t.ok(cap.prompts[0]!.includes(JSON.stringify(invoice).slice(1, -1)), `${why}: the document text reaches the model as sent`)
  }
  t.match(cap.prompts[0], /never compute, correct or guess a number/)
  cap.reply(mockModel)
})
