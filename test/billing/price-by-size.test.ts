// Price by size (issue 27): the dry run quotes the exact price of the given input, the live call holds and
// charges exactly that, an async acceptance holds it, a failure is free, and concurrent sized calls on one
// account never overdraw. Through the HTTP API, real PostgreSQL, PDFs built here.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import t from 'tap'
import parse from '../../capabilities/parse/manifest.ts'
import summarize from '../../capabilities/summarize/manifest.ts'
import { capabilityHarness } from '../helpers/capability.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'

const pdf = (pages: number) => ({
  data: plainPdf(...Array.from({ length: pages }, (_, i) => `Folio ${i + 1}: Invoice INV-${i + 1}00 from Vendor${i + 1} Ltd`)).toString(
    'base64',
  ),
  mimeType: 'application/pdf',
})
const answer = {
  docType: 'invoice',
  party: 'Vendor1 Ltd',
  documentNumber: 'INV-100',
  date: null,
  totalAmount: null,
  currency: null,
  support: [{ field: 'documentNumber', quote: 'Invoice INV-100', page: 1, confidence: 0.9 }],
  lineItems: [],
  fields: [],
}
const DRY = { 'service-dry-run': '1' }

// No worker: an accepted job keeps its hold, so the test can read it.
const cap = await capabilityHarness(t, parse, { funds: 1000 })
const long = pdf(300)

t.test('a 300-page parse: the dry run quotes what the live call then charges', async (t) => {
  cap.reply(answer)
  const customer = await cap.customer(1000)
  const dry = await cap.post(customer, { file: long }, DRY)
  t.equal(dry.status, 200, dry.text)
  t.match(dry.body, { dryRun: true, liveStatus: 200, wouldCharge: 300, price: 300, balance: 1000 })
  t.same(dry.body.size, { unit: 'page', units: 300, included: 10, perUnit: 1 })
  t.same(await cap.app.ledger(customer.accountId), { balance: 1000, reserved: 0, ledgerSum: 1000 }, 'a dry run moves nothing')

  const call = await cap.call({ file: long }, { customer })
  cap.expectCharged(t, call, dry.body.wouldCharge)
  t.same(call.res.body.usage.size, dry.body.size, "the result's usage reports the units")

  const usage = await cap.app.call('/v1/usage', { key: customer.key })
  t.equal(usage.status, 200, usage.text)
  t.match(
    usage.body.entries[0],
    { kind: 'charge', amount: -300, endpoint: 'parse', size: dry.body.size },
    'the ledger row: quoted price, units',
  )
})

t.test('pages select what is priced; within the included pages the price is unchanged', async (t) => {
  cap.reply(answer)
  const customer = await cap.customer(1000)
  const dry = await cap.post(customer, { file: long, pages: '1-12, 300' }, DRY)
  t.match(dry.body, { wouldCharge: 13, price: 13, size: { units: 13 } })
  cap.expectCharged(t, await cap.call({ file: long, pages: '1-12, 300' }, { customer }), 13)

  const small = await cap.post(customer, { file: pdf(3) }, DRY)
  t.match(small.body, { wouldCharge: 10, price: 10 })
  t.notOk('size' in small.body, 'within the included pages: the flat price, no size')
  cap.expectCharged(t, await cap.call({ file: pdf(3) }, { customer }), 10)
  // Text is priced per 3,000 characters begun on each page.
  const text = 'x'.repeat(3000 * 11 + 1)
  t.match((await cap.post(customer, { text }, DRY)).body, { wouldCharge: 12, size: { units: 12 } })
  cap.expectCharged(t, await cap.call({ text }, { customer }), 12)
})

t.test('an async acceptance holds the quoted price; a failed call is free; too little money is 402 at that price', async (t) => {
  cap.reply(answer)
  const customer = await cap.customer(1000)
  const accepted = await cap.post(customer, { file: long, async: true })
  t.equal(accepted.status, 202, accepted.text)
  t.same(await cap.app.ledger(customer.accountId), { balance: 1000, reserved: 300, ledgerSum: 1000 }, 'the job holds 300')
  const [hold] = await cap.app.services.db.sql<{ size: unknown }>(`select size from holds where account_id = ? and state = 'open'`, [
    customer.accountId,
  ])
  t.same(hold?.size, { unit: 'page', units: 300, included: 10, perUnit: 1 }, 'the hold records what it was priced at')

  cap.reply({ docType: null }) // no classification: the call fails
  const failed = await cap.call({ file: long }, { customer })
  t.equal(failed.res.status, 502, failed.res.text)
  t.same(failed.ledger, failed.before, 'a failed call is free')

  const poor = await cap.customer(299)
  const refused = await cap.post(poor, { file: long })
  t.equal(refused.status, 402, refused.text)
  t.match(refused.body.error, { code: 'insufficient_credits', message: /costs 300 credits; 299 are available/ })
  t.same(await cap.app.ledger(poor.accountId), { balance: 299, reserved: 0, ledgerSum: 299 })
  const dry = await cap.post(poor, { file: long }, DRY)
  t.match(dry.body, { liveStatus: 402, wouldCharge: 0, price: 300, error: { code: 'insufficient_credits' } })
})

t.test('concurrent sized calls on one account: exactly what the balance covers, money exact', async (t) => {
  cap.reply(answer)
  const customer = await cap.customer(40)
  const body = { file: pdf(15) } // 10 + 5 extra pages = 15 credits
  const answers = await Promise.all(Array.from({ length: 4 }, () => cap.post(customer, body)))
  const statuses = answers.map((r) => r.status).sort()
  t.same(statuses, [200, 200, 402, 402], answers.map((r) => r.text.slice(0, 200)).join('\n'))
  for (const r of answers.filter((a) => a.status === 200)) t.equal(r.body.usage.credits, 15)
  t.same(await cap.app.ledger(customer.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
})

const sum = await capabilityHarness(t, summarize, { funds: 1000 })

t.test('long text is priced in 1,000-token units beyond the included 32', async (t) => {
  sum.reply({ summary: 'Revenue grew.', keyPoints: ['Revenue grew'], actionItems: [] })
  const customer = await sum.customer(1000)
  const text = Array.from({ length: 6000 }, (_, i) => `Region ${i} reported revenue growth of ${i % 17} percent.`).join(' ')
  const units = Math.ceil(countTokens(text) / 1000)
  t.ok(units > 32, `${units} units`)
  const dry = await sum.post(customer, { text }, DRY)
  t.match(dry.body, { wouldCharge: 3 + units - 32, size: { unit: '1k-tokens', units, included: 32, perUnit: 1 } })
  sum.expectCharged(t, await sum.call({ text }, { customer }), 3 + units - 32)

  const short = await sum.post(customer, { text: 'Revenue grew in every region.' }, DRY)
  t.match(short.body, { wouldCharge: 3, price: 3 })
  t.notOk('size' in short.body)
  const flat = await sum.call({ text: 'Revenue grew in every region.' }, { customer })
  sum.expectCharged(t, flat, 3)
  t.same(Object.keys(flat.res.body.usage), ['credits', 'balanceRemaining', 'livemode'], "today's usage for today's inputs")
})

t.test('a replay under the same Idempotency-Key is answered without reading the document again', async (t) => {
  const bytes = plainPdf(...Array.from({ length: 30 }, (_, i) => `Folio ${i + 1}: Invoice INV-${i + 1}00 from Vendor${i + 1} Ltd`))
  let fetches = 0
  const server = createServer((_, res) => {
    fetches++
    if (fetches > 1) return res.writeHead(404).end() // gone after the first read
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(bytes)
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bundle.pdf`

  const local = await capabilityHarness(t, parse, { config: { callbacksAllowPrivate: true } })
  local.reply(answer)
  const customer = await local.customer(100)
  const headers = { 'idempotency-key': 'bundle-1' }
  const first = await local.call({ fileUrl }, { customer, headers })
  local.expectCharged(t, first, 30)
  const again = await local.post(customer, { fileUrl }, headers)
  t.equal(again.status, 200, again.text)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.equal(again.text, first.res.text, 'the recorded answer, byte for byte')
  t.equal(fetches, 1, 'the document was read once')
  t.same(await local.app.ledger(customer.accountId), first.ledger, 'charged once')
})

t.test('an async job reads the document its acceptance priced: a later version at the same URL is refused, free', async (t) => {
  // The server answers 1 page to the acceptance's read and 999 pages to every read after it.
  const onePage = plainPdf('Folio 1: Invoice INV-100 from Vendor1 Ltd')
  const manyPages = plainPdf(...Array.from({ length: 999 }, (_, i) => `Folio ${i + 1}: Invoice INV-${i + 1}00 from Vendor${i + 1} Ltd`))
  let reads = 0
  const server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(reads++ === 0 ? onePage : manyPages)
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoice.pdf`

  const jobs = await capabilityHarness(t, parse, { worker: true, config: { callbacksAllowPrivate: true } })
  jobs.reply(answer)
  const customer = await jobs.customer(100)
  const accepted = await jobs.post(customer, { fileUrl, async: true })
  t.equal(accepted.status, 202, accepted.text)
  t.match(accepted.body, { credits: { held: 10 } }, 'priced at the 1 page it read')
  const job = await jobs.job(customer, accepted.body.jobId)
  t.equal(reads, 2, 'the worker read the URL again')
  t.match(job, { status: 'failed', errorCode: 'document_changed', error: /changed since the job was accepted/ })
  t.equal(jobs.prompts.length, 0, 'nothing reached the model')
  t.same(await jobs.app.ledger(customer.accountId), { balance: 100, reserved: 0, ledgerSum: 100 }, 'refused free')

  // The same document at both reads: the job runs and is charged its price.
  reads = 0
  const steady = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(onePage)).listen(0, '127.0.0.1')
  await once(steady, 'listening')
  t.teardown(() => steady.close())
  const steadyUrl = `http://127.0.0.1:${(steady.address() as AddressInfo).port}/invoice.pdf`
  const again = await jobs.post(customer, { fileUrl: steadyUrl, async: true })
  t.equal(again.status, 202, again.text)
  t.match(await jobs.job(customer, again.body.jobId), { status: 'succeeded' })
  t.same(await jobs.app.ledger(customer.accountId), { balance: 90, reserved: 0, ledgerSum: 90 }, 'charged the 10 it held')
})
