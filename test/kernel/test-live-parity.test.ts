// Test mode is live minus the model and the money: the same 20 inputs — valid, size-priced, hostile or corrupt
// documents, malformed bodies — sent with a test key and with a live key of one account get the same status
// code, the same error code, the same quoted price (dry run) and the same measured size; the test key's answers
// charge nothing and never reach the model. Simulated outcomes say so and carry the real figures.
import t from 'tap'
import classify from '../../capabilities/classify/manifest.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { capabilityHarness, type CapabilityHarness } from '../helpers/capability.ts'
import * as hostile from '../../devkit/fixtures/hostile.ts'

// 80 calls and 40 dry runs, most of them reading documents in the decoder pool: minutes on a loaded 2-core machine.
t.setTimeout(600_000)
const MiB = 1024 * 1024
const env = { DOCUMENT_MAX_DECOMPRESSED_BYTES: String(4 * MiB) }
const parsing = await capabilityHarness(t, parse, { env })
const classifying = await capabilityHarness(t, classify, { env })
const parseAnswer = {
  docType: 'invoice',
  party: null,
  documentNumber: null,
  date: null,
  totalAmount: null,
  currency: null,
  lineItems: [],
  fields: [],
}
const classifyAnswer = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing problem.' }

const pdf = (bytes: Buffer) => ({ file: { data: bytes.toString('base64'), mimeType: 'application/pdf' } })
const pages = (n: number) => pdf(hostile.plainPdf(...Array.from({ length: n }, (_, i) => `Folio ${i + 1}: invoice INV-${i + 1}`)))
const labels = ['billing', 'technical']

interface Input {
  name: string
  cap: CapabilityHarness
  body: Record<string, unknown>
}

const INPUTS: Input[] = [
  { name: 'a 3-page PDF (flat price)', cap: parsing, body: pages(3) },
  { name: 'a 15-page PDF (priced by size)', cap: parsing, body: pages(15) },
  { name: 'a 40-page PDF (priced by size)', cap: parsing, body: pages(40) },
  { name: 'pages 1-12 of a 60-page PDF (priced by size)', cap: parsing, body: { ...pages(60), pages: '1-12' } },
  { name: 'a short text', cap: parsing, body: { text: 'Invoice 77. Total 12.00 EUR.' } },
  { name: 'a text of 12 priced pages', cap: parsing, body: { text: 'x'.repeat(3000 * 11 + 1) } },
  { name: 'hostile: a flate bomb', cap: parsing, body: pdf(hostile.flateBomb(64 * MiB)) },
  { name: 'hostile: objects nested 100,000 deep', cap: parsing, body: pdf(hostile.deepNesting(100_000)) },
  { name: 'hostile: 10,000 pages', cap: parsing, body: pdf(hostile.manyPages(10_000)) },
  { name: 'corrupt: password-protected', cap: parsing, body: pdf(hostile.encryptedPdf('Secret ledger', 'hunter2')) },
  { name: 'corrupt: not a PDF at all', cap: parsing, body: pdf(Buffer.from('%PDF-1.7 this is not really a PDF')) },
  { name: 'page selection past the end', cap: parsing, body: { ...pages(3), pages: '7' } },
  { name: 'no document', cap: parsing, body: {} },
  { name: 'two documents', cap: parsing, body: { text: 'a', fileUrl: 'https://example.com/a.pdf' } },
  { name: 'async: a 15-page PDF', cap: parsing, body: { ...pages(15), async: true } },
  { name: 'async: a flate bomb', cap: parsing, body: { ...pdf(hostile.flateBomb(64 * MiB)), async: true } },
  { name: 'classify: a short text', cap: classifying, body: { text: 'I was charged twice', labels } },
  { name: 'classify: 40k tokens (priced by size)', cap: classifying, body: { text: 'charge refund invoice '.repeat(13_500), labels } },
  { name: 'classify: one label', cap: classifying, body: { text: 'I was charged twice', labels: ['billing'] } },
  { name: 'classify: async on a sync endpoint', cap: classifying, body: { text: 'I was charged twice', labels, async: true } },
]

t.test('20 inputs, a test key and a live key: the same status, error code, quoted price and size', async (t) => {
  t.equal(INPUTS.length, 20)
  t.equal(INPUTS.filter((i) => /^(hostile|corrupt)/.test(i.name)).length, 5, '5 hostile or corrupt documents')
  parsing.reply(parseAnswer)
  classifying.reply(classifyAnswer)
  let sizePriced = 0
  for (const input of INPUTS) {
    const live = await input.cap.customer(10_000)
    const { key: testKey } = await createKey(input.cap.app.services.db, live.accountId, { mode: 'test' })
    const test = { ...live, key: testKey }
    const [liveDry, testDry] = [
      await input.cap.post(live, input.body, { 'service-dry-run': '1' }),
      await input.cap.post(test, input.body, { 'service-dry-run': '1' }),
    ]
    t.equal(testDry.status, liveDry.status, `${input.name}: the dry runs answer alike (${liveDry.status})`)
    if (liveDry.status === 200) {
      t.equal(testDry.body.liveStatus, liveDry.body.liveStatus, `${input.name}: the same quoted status (${liveDry.body.liveStatus})`)
      t.equal(testDry.body.price, liveDry.body.price, `${input.name}: the same quoted price (${liveDry.body.price})`)
      t.same(testDry.body.size, liveDry.body.size, `${input.name}: the same measured size`)
      t.equal(testDry.body.error?.code, liveDry.body.error?.code, `${input.name}: the same quoted refusal`)
      t.equal(testDry.body.wouldCharge, 0, `${input.name}: a test key is never charged`)
      if (liveDry.body.size) sizePriced++
    }
    const prompts = input.cap.prompts.length
    const testCall = await input.cap.post(test, input.body)
    t.equal(input.cap.prompts.length, prompts, `${input.name}: the test call reached no model`)
    const liveCall = await input.cap.post(live, input.body)
    t.equal(testCall.status, liveCall.status, `${input.name}: the same status (${liveCall.status})`)
    t.equal(testCall.body?.error?.code, liveCall.body?.error?.code, `${input.name}: the same error code (${liveCall.body?.error?.code})`)
    if (liveDry.status === 200 && liveDry.body.liveStatus < 300)
      t.equal(liveCall.status, liveDry.body.liveStatus, `${input.name}: the dry run told the truth`)
    if (liveCall.status === 200) {
      t.same(testCall.body.usage.size, liveCall.body.usage.size, `${input.name}: usage reports the same size`)
      t.match(testCall.body.usage, { credits: 0, livemode: false })
      t.match(liveCall.body.usage, { credits: liveDry.body.price, livemode: true })
    }
    if (liveCall.status === 202) {
      t.same(testCall.body.credits, { held: 0 }, `${input.name}: a test job holds nothing`)
      t.same(liveCall.body.credits, { held: liveDry.body.price }, `${input.name}: a live job holds the quoted price`)
      t.same([testCall.body.livemode, liveCall.body.livemode], [false, true])
    }
  }
  t.ok(sizePriced >= 3, `${sizePriced} inputs priced by size, 3 of them PDFs`)
})

t.test('simulated outcomes say "simulated" and carry the real figures', async (t) => {
  const live = await parsing.customer(498)
  const { key } = await createKey(parsing.app.services.db, live.accountId, { mode: 'test' })
  const test = { ...live, key }
  const broke = await parsing.post(test, pages(15), { 'service-test-outcome': 'insufficient_credits' })
  t.equal(broke.status, 402)
  t.match(broke.body.error.message, /^Simulated by Service-Test-Outcome: This call costs 15 credits; 498 are available\./)
  const outcomes = [
    'rate_limited',
    'spend_cap_reached',
    'idempotency_key_in_use',
    'idempotency_key_reused',
    'inference_unavailable',
    'inference_failed',
  ]
  for (const outcome of outcomes) {
    const res = await parsing.post(test, pages(3), { 'service-test-outcome': outcome, 'idempotency-key': `sim-${outcome}` })
    t.equal(res.body.error.code, outcome)
    t.match(res.body.error.message, /^Simulated by Service-Test-Outcome: /, `${outcome}: says it was simulated`)
  }
  const dry = await parsing.post(test, pages(15), { 'service-test-outcome': 'insufficient_credits', 'service-dry-run': '1' })
  t.match(dry.body, { liveStatus: 402, price: 15, error: { message: /costs 15 credits; 498 are available/ } })
  await parsing.app.expectLedger(t, live.accountId, 498)
})
