import t from 'tap'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/registry.ts'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { codeInText, lookup, lookupAny, normalizeCode, REASON_CODES } from './codes.ts'
import manifest from './manifest.ts'

// One app for the file, serving only this folder: the mock text model answers from `answer` unless
// `viaFake` is set, then the real @ai-sdk/openai client talks to the fake OpenAI-compatible server.
let answer: (prompt: string) => unknown = () => ({})
let viaFake = false
const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const mock = mockProvider((p) => answer(p))
const real = fakeServerProvider(fake.baseURL)
const app = await startTestApp(t, {
  capabilities: [checkManifest(manifest as unknown as CapabilityManifest, 'chargeback', 'capabilities/chargeback')],
  provider: { ...mock, language: () => (viaFake ? real : mock).language() },
})

const transaction = { amount: 249.99, currency: 'USD', date: '2026-02-03', descriptor: 'ACME*OUTDOOR' }
const base = { reason: 'Cardholder says the order never arrived.', transaction }
const model = (over: object = {}) => ({
  reasonCategory: 'consumer_dispute',
  reasonCode: '13.1',
  recommendedAction: 'fight',
  narrative: 'The goods were delivered on 2026-02-06.',
  evidenceChecklist: [{ item: 'Proof of delivery', evidenceIndexes: [] }],
  winLikelihood: 0.7,
  rationale: 'Delivery proof usually wins.',
  ...over,
})

async function call(body: unknown, credits = 30) {
  const c = await app.customer(credits)
  const res = await app.call('/v1/chargeback', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

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
  answer = () => model({ reasonCode: '4853', reasonCategory: 'consumer_dispute' })
  const wrongNetwork = await call({ ...base, network: 'visa' })
  t.equal(wrongNetwork.res.status, 200, wrongNetwork.res.text)
  t.equal(wrongNetwork.res.body.reasonCode, null)
  t.equal(wrongNetwork.res.body.reasonCategory, 'consumer_dispute', "no code: the model's category")
  t.equal(wrongNetwork.res.body.network, 'visa')
  t.notOk('reasonDescription' in wrongNetwork.res.body)
  t.same(wrongNetwork.res.body.usage, { credits: 15, balanceRemaining: 15 })
  t.equal(wrongNetwork.ledger.balance, 15)

  answer = () => model({ reasonCode: '99.9' })
  t.equal((await call({ ...base, network: 'visa' })).res.body.reasonCode, null, 'an invented code is dropped')

  answer = () => model({ reasonCode: 'Visa 13.1', reasonCategory: 'fraud' })
  const visa = await call({ ...base, network: 'visa' })
  t.match(visa.res.body, { reasonCode: '13.1', reasonCategory: 'consumer_dispute', reasonDescription: 'Merchandise/Services Not Received' })

  answer = () => model({ reasonCode: 'C08', reasonCategory: 'processing_error' })
  t.match((await call({ ...base, network: 'amex' })).res.body, { reasonCode: 'C08', reasonCategory: 'consumer_dispute', network: 'amex' })

  answer = () => model({ reasonCode: 'NA', reasonCategory: 'consumer_dispute' })
  t.equal((await call({ ...base, network: 'discover' })).res.body.reasonCode, null, '"NA" from the model is "not applicable", not Discover NA')

  answer = () => model({ reasonCode: '4837', reasonCategory: 'consumer_dispute' })
  const inferred = await call(base)
  t.match(inferred.res.body, { reasonCode: '4837', reasonCategory: 'fraud', network: 'mastercard' }, 'no network given: a code of exactly one network')
})

t.test("the code the caller's reason states wins over the model's", async (t) => {
  answer = () => model({ reasonCode: '13.1', reasonCategory: 'consumer_dispute' })
  const { res } = await call({ ...base, reason: 'Visa 10.4 – cardholder does not recognise the purchase' })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { reasonCode: '10.4', reasonCategory: 'fraud', network: 'visa' })
  const discover = await call({ ...base, network: 'discover', reason: 'Reason code RG, goods not received' })
  t.match(discover.res.body, { reasonCode: 'RG', reasonCategory: 'consumer_dispute' })
})

t.test("`have` is computed from the caller's evidence, never taken from the model", async (t) => {
  const checklist = [
    { item: 'Proof of delivery (carrier tracking)', evidenceIndexes: [] },
    { item: 'Signed delivery confirmation', evidenceIndexes: [7, -1] },
    { item: 'Customer emails acknowledging receipt', evidenceIndexes: [1] },
    { item: 'AVS and CVV results', evidenceIndexes: [] },
    { item: 'Proof of delivery (carrier tracking)', evidenceIndexes: [] },
  ]
  answer = () => model({ evidenceChecklist: checklist })
  const none = await call(base)
  t.same(
    none.res.body.evidenceChecklist.map((e: any) => e.have),
    [false, false, false, false],
    'no evidence supplied: nothing is had, whatever indexes the model gave; duplicates dropped',
  )

  const evidence = ['UPS tracking 1Z999 shows delivered 2026-02-06', 'Screenshot of order page', 'AVS: Y, CVV: M']
  const { res } = await call({ ...base, evidence })
  t.equal(res.status, 200, res.text)
  t.same(res.body.evidenceChecklist, [
    { item: 'Proof of delivery (carrier tracking)', have: true, matchedEvidence: [evidence[0]] },
    { item: 'Signed delivery confirmation', have: false },
    { item: 'Customer emails acknowledging receipt', have: true, matchedEvidence: [evidence[1]] },
    { item: 'AVS and CVV results', have: true, matchedEvidence: [evidence[2]] },
  ])
})

t.test('answers that break the promises are failed calls, free', async (t) => {
  for (const [why, reply] of [
    ['a win likelihood above 1', model({ winLikelihood: 1.4 })],
    ['an action outside fight|accept', model({ recommendedAction: 'settle' })],
    ['a category outside the enum', model({ reasonCategory: 'friendly fraud' })],
    ['no checklist', model({ evidenceChecklist: [] })],
    ['no narrative', model({ narrative: ' ' })],
    ['no rationale', model({ rationale: '' })],
  ] as const) {
    answer = () => reply
    const { res, ledger } = await call({ ...base, network: 'visa' })
    t.equal(res.status, 502, why)
    t.equal(res.body.error.code, 'inference_failed')
    t.same({ balance: ledger.balance, reserved: ledger.reserved }, { balance: 30, reserved: 0 })
  }
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  answer = () => model()
  for (const body of [
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
  ]) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
    t.equal(res.body.error.code, 'invalid_request')
    t.equal(ledger.balance, 30)
  }
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => {
    viaFake = false
  })
  fake.set({ text: () => model({ evidenceChecklist: [{ item: 'Proof of delivery', evidenceIndexes: [0] }] }) })
  const { res, ledger } = await call({ ...base, network: 'visa', evidence: ['Photo of parcel at door'] })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    reasonCategory: 'consumer_dispute',
    reasonCode: '13.1',
    reasonDescription: 'Merchandise/Services Not Received',
    network: 'visa',
    recommendedAction: 'fight',
    narrative: 'The goods were delivered on 2026-02-06.',
    evidenceChecklist: [{ item: 'Proof of delivery', have: true, matchedEvidence: ['Photo of parcel at door'] }],
    winLikelihood: 0.7,
    rationale: 'Delivery proof usually wins.',
    usage: { credits: 15, balanceRemaining: 15 },
  })
  t.equal(ledger.ledgerSum, 15)
  t.match(JSON.stringify(fake.requests.at(-1)!.body), /0\. Photo of parcel at door/, 'evidence is numbered for the model')
})
