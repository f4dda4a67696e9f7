import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { codeInText, lookup, lookupAny, normalizeCode, REASON_CODES } from './codes.ts'
import manifest from './manifest.ts'

// The mock text model answers unless a subtest moves to the fake OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { funds: 30 })

const transaction = { amount: 249.99, currency: 'USD', date: '2026-02-03', descriptor: 'ACME*OUTDOOR' }
const base = { reason: 'Cardholder says the order never arrived.', transaction }
const model = (over: object = {}) => ({
  reasonCategory: 'consumer_dispute',
  reasonCode: '13.1',
  recommendedAction: 'fight',
  narrative: 'The goods were delivered on 2026-02-06.',
  evidenceChecklist: [{ item: 'Proof of delivery', support: [] }],
  winLikelihood: 0.7,
  rationale: 'Delivery proof usually wins.',
  ...over,
})

t.test('the reason code tables', async (t) => {
  t.equal(lookup('visa', 'Visa 10.4')?.category, 'fraud')
  t.equal(lookup('visa', '11.3')?.category, 'authorization')
  t.equal(lookup('visa', '12.6.1')?.category, 'processing_error')
  t.equal(lookup('visa', '13.3')?.category, 'consumer_dispute')
  t.equal(lookup('mastercard', '4837 No Cardholder Authorization')?.category, 'fraud')
  t.equal(lookup('mastercard', '4808')?.category, 'authorization')
  t.equal(lookup('mastercard', '4834')?.category, 'processing_error')
  t.equal(lookup('mastercard', '4853')?.category, 'consumer_dispute')
  t.equal(lookup('amex', 'F29')?.category, 'fraud')
  t.equal(lookup('amex', 'FR2')?.category, 'fraud')
  t.equal(lookup('amex', 'A02')?.category, 'authorization')
  t.equal(lookup('amex', 'P08')?.category, 'processing_error')
  t.equal(lookup('amex', 'c08')?.category, 'consumer_dispute')
  t.equal(lookup('discover', 'UA-02')?.category, 'fraud')
  t.equal(lookup('discover', 'RG')?.category, 'consumer_dispute')
  t.equal(lookup('visa', '4837'), null, 'a Mastercard code is no Visa code')
  t.equal(lookup('visa', '10.9'), null)
  t.equal(lookup('mastercard', '4800'), null)
  t.equal(lookupAny('4863')?.network, 'mastercard')
  t.equal(lookupAny('13.7')?.network, 'visa')
  t.equal(normalizeCode('Card not present'), '', 'words are not codes')
  t.equal(codeInText('Open IN the PM queue', 'discover'), null, 'capitals in prose are not Discover codes')
  t.equal(codeInText('Discover reason code: AA', 'discover')?.reason.code, 'AA')
  for (const [network, rows] of Object.entries(REASON_CODES)) {
    t.equal(new Set(rows.map((r) => r.code)).size, rows.length, `${network}: codes are unique`)
    for (const r of rows) t.equal(lookup(network as never, r.code), r, `${network} ${r.code} looks itself up`)
  }
})

t.test("a reason code outside the network's table is dropped; the category follows the table", async (t) => {
  cap.reply(model({ reasonCode: '4853', reasonCategory: 'consumer_dispute' }))
  const wrongNetwork = await cap.call({ ...base, network: 'visa' })
  cap.expectCharged(t, wrongNetwork)
  t.notOk('reasonCode' in wrongNetwork.res.body, 'unknown: left out')
  t.equal(wrongNetwork.res.body.reasonCategory, 'consumer_dispute', "no code: the model's category")
  t.equal(wrongNetwork.res.body.network, 'visa')
  t.notOk('reasonDescription' in wrongNetwork.res.body)

  cap.reply(model({ reasonCode: '99.9' }))
  t.notOk('reasonCode' in (await cap.call({ ...base, network: 'visa' })).res.body, 'an invented code is dropped')

  cap.reply(model({ reasonCode: 'Visa 13.1', reasonCategory: 'fraud' }))
  const visa = await cap.call({ ...base, network: 'visa' })
  t.match(visa.res.body, { reasonCode: '13.1', reasonCategory: 'consumer_dispute', reasonDescription: 'Merchandise/Services Not Received' })

  cap.reply(model({ reasonCode: 'C08', reasonCategory: 'processing_error' }))
  t.match((await cap.call({ ...base, network: 'amex' })).res.body, {
    reasonCode: 'C08',
    reasonCategory: 'consumer_dispute',
    network: 'amex',
  })

  cap.reply(model({ reasonCode: 'NA', reasonCategory: 'consumer_dispute' }))
  t.notOk(
    'reasonCode' in (await cap.call({ ...base, network: 'discover' })).res.body,
    '"NA" from the model is "not applicable", not Discover NA',
  )

  cap.reply(model({ reasonCode: '4837', reasonCategory: 'consumer_dispute' }))
  const inferred = await cap.call(base)
  t.match(
    inferred.res.body,
    { reasonCode: '4837', reasonCategory: 'fraud', network: 'mastercard' },
    'no network given: a code of exactly one network',
  )
})

t.test("the code the caller's reason states wins over the model's", async (t) => {
  cap.reply(model({ reasonCode: '13.1', reasonCategory: 'consumer_dispute' }))
  const { res } = await cap.call({ ...base, reason: 'Visa 10.4 – cardholder does not recognise the purchase' })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { reasonCode: '10.4', reasonCategory: 'fraud', network: 'visa' })
  const discover = await cap.call({ ...base, network: 'discover', reason: 'Reason code RG, goods not received' })
  t.match(discover.res.body, { reasonCode: 'RG', reasonCategory: 'consumer_dispute' })
})

t.test("`have` is computed from the caller's evidence, never taken from the model", async (t) => {
  const checklist = [
    { item: 'Proof of delivery (carrier tracking)', support: [{ evidenceIndex: 0, quote: 'shows  DELIVERED 2026-02-06' }] },
    { item: 'Signed delivery confirmation', support: [{ evidenceIndex: 1, quote: 'signed' }] },
    { item: 'Customer emails acknowledging receipt', support: [{ evidenceIndex: 1, quote: 'customer wrote "thanks, got it"' }] },
    {
      item: 'AVS and CVV results',
      support: [
        { evidenceIndex: 2, quote: 'AVS: Y' },
        { evidenceIndex: 2, quote: 'CVV: M' },
      ],
    },
    { item: 'Proof of delivery (carrier tracking)', support: [] },
  ]
  const evidence = ['UPS tracking 1Z999 shows delivered 2026-02-06', 'Screenshot of order page', 'AVS: Y, CVV: M']
  cap.reply(model({ evidenceChecklist: checklist }))
  const { res } = await cap.call({ ...base, evidence })
  t.equal(res.status, 200, res.text)
  t.same(res.body.evidenceChecklist, [
    {
      item: 'Proof of delivery (carrier tracking)',
      have: true,
      matchedEvidence: [{ evidenceIndex: 0, quote: 'shows DELIVERED 2026-02-06' }],
    },
    { item: 'Signed delivery confirmation', have: false }, // the quote is not in item 1
    { item: 'Customer emails acknowledging receipt', have: false },
    { item: 'AVS and CVV results', have: true, matchedEvidence: [{ evidenceIndex: 2, quote: 'AVS: Y' }] },
  ])
  t.equal(cap.prompts.length, 1, 'a quote not found is no reason to ask again: the entry is simply not had')
})

t.test('the schema bounds evidence indexes by the evidence given: none without evidence, asked once more', async (t) => {
  const outOfRange = [{ item: 'Signed delivery confirmation', support: [{ evidenceIndex: 3, quote: 'signed' }] }]
  const cited = [{ item: 'Proof of delivery', support: [{ evidenceIndex: 0, quote: 'delivered' }] }]
  cap.reply(model({ evidenceChecklist: outOfRange }), model({ evidenceChecklist: cited }))
  const fixed = await cap.call({ ...base, evidence: ['UPS shows delivered', 'Order email', 'AVS: Y'] })
  t.equal(fixed.res.status, 200, fixed.res.text)
  t.equal(cap.prompts.length, 2, 'index 3 of three items was sent back once')
  t.same(fixed.res.body.evidenceChecklist, [
    { item: 'Proof of delivery', have: true, matchedEvidence: [{ evidenceIndex: 0, quote: 'delivered' }] },
  ])

  cap.reply(model({ evidenceChecklist: cited }))
  await cap.expectRefused(t, base, { status: 502, code: 'inference_failed', why: 'no evidence given, yet the model cites item 0' })
  cap.reply(model({ evidenceChecklist: [{ item: 'Proof of delivery', support: [] }] }))
  const none = await cap.call(base)
  t.same(none.res.body.evidenceChecklist, [{ item: 'Proof of delivery', have: false }], 'no evidence, nothing is had')
})

t.test('issue 16: words are not proof; "never delivered" does not prove delivery', async (t) => {
  // Before: keyword matching linked any item mentioning delivery to "proof of delivery", even this one.
  const evidence = ['Customer says the package was never delivered', 'Order confirmation email sent 2026-02-03']
  cap.reply(
    model({
      evidenceChecklist: [
        { item: 'Proof of delivery (carrier tracking)', support: [] },
        { item: 'Order receipt', support: [{ evidenceIndex: 1, quote: 'Order confirmation email' }] },
      ],
    }),
  )
  const { res } = await cap.call({ ...base, evidence })
  t.equal(res.status, 200, res.text)
  t.same(res.body.evidenceChecklist, [
    { item: 'Proof of delivery (carrier tracking)', have: false },
    { item: 'Order receipt', have: true, matchedEvidence: [{ evidenceIndex: 1, quote: 'Order confirmation email' }] },
  ])
})

t.test('answers outside the schema are asked once more, then failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['a win likelihood above 1', model({ winLikelihood: 1.4 })],
    ['an action outside fight|accept', model({ recommendedAction: 'settle' })],
    ['a category outside the enum', model({ reasonCategory: 'friendly fraud' })],
    ['no checklist', model({ evidenceChecklist: [] })],
    ['no narrative', model({ narrative: ' ' })],
    ['no rationale', model({ rationale: '' })],
    ['a blank checklist item', model({ evidenceChecklist: [{ item: ' ', support: [] }] })],
  ] as const) {
    cap.reply(reply)
    await cap.expectRefused(t, { ...base, network: 'visa' }, { status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, `${why}: sent back once`)
  }
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { reason: 'x' },
    { transaction },
    { ...base, reason: '' },
    { ...base, transaction: {} },
    { ...base, network: 'jcb' },
    { ...base, transaction: { ...transaction, date: '03/02/2026' } },
    { ...base, transaction: { ...transaction, amount: -5 } },
    { ...base, transaction: { ...transaction, currency: 'US Dollars' } },
    { ...base, transaction: { ...transaction, cardLast4: '4242' } },
    { ...base, evidence: 'tracking' },
    { ...base, evidence: Array.from({ length: 51 }, () => 'e') },
    { ...base, evidence: ['x'.repeat(2001)] },
    { ...base, context: 'x'.repeat(20_001) },
    { ...base, winLikelihood: 1 },
  ],
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({
    text: () => model({ evidenceChecklist: [{ item: 'Proof of delivery', support: [{ evidenceIndex: 0, quote: 'parcel at door' }] }] }),
  })
  const call = await cap.call({ ...base, network: 'visa', evidence: ['Photo of parcel at door'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    reasonCategory: 'consumer_dispute',
    reasonCode: '13.1',
    reasonDescription: 'Merchandise/Services Not Received',
    network: 'visa',
    recommendedAction: 'fight',
    narrative: 'The goods were delivered on 2026-02-06.',
    evidenceChecklist: [{ item: 'Proof of delivery', have: true, matchedEvidence: [{ evidenceIndex: 0, quote: 'parcel at door' }] }],
    winLikelihood: 0.7,
    rationale: 'Delivery proof usually wins.',
    usage: { credits: 15, balanceRemaining: 15, livemode: true },
  })
  t.match(JSON.stringify(fake.requests.at(-1)!.body), /0\. Photo of parcel at door/, 'evidence is numbered for the model')
})
