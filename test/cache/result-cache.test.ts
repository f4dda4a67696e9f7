// The result cache (C20) as a client meets it, against real PostgreSQL and the real @ai-sdk/openai client talking
// to the fake OpenAI server (which counts the model requests): a repeated parse is a hit, byte-identical but for
// usage and the request id, at the hit price, without a model request; no-store, another account, a test key, an
// emptied cache, another manifest version or model route all miss.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { createKey } from '../../core/accounts/keys.ts'
import { checkManifest } from '../../core/run/registry.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { fakeServerProvider, startTestApp, type Reply } from '../helpers/app.ts'
import { createTestDatabase } from '../../devkit/database.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import { openAIProvider } from '../../core/models/provider.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { costReport } from '../../core/admin/costs.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'
import { signedInMember } from '../helpers/teams.ts'

const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const modelRequests = () => fake.requests.filter((r) => r.path === '/v1/responses').length
const database = await createTestDatabase()
t.teardown(() => database.drop())
const capability = (version?: number) => checkManifest({ ...parse, ...(version ? { version } : {}) }, 'parse', 'capabilities/parse')
const provider = (routes: Record<string, string> = {}) =>
  openAIProvider({
    apiKey: 'test',
    baseURL: fake.baseURL,
    wireApi: 'responses',
    models: { text: 'test-model', image: 'i', speech: 's', transcription: 't' },
    prices: { 'test-model': { inputPerMTok: 1, outputPerMTok: 2 } }, // what /admin/costs reports as saved
    routes,
  })
const app = await startTestApp(t, {
  resultCache: true,
  databaseUrl: database.url,
  provider: provider(),
  capabilities: [capability()],
  config: { callbacksAllowPrivate: true }, // documents served on loopback
})

const invoice = (n: number) => ({
  text: `Northwind Office Supply LLC\nInvoice NW-${n}\nIssue date: 2024-03-04\nChair 998.00\nTotal due: 998.00 USD`,
  docType: 'invoice',
})
/** The body before `usage`: what must be byte-identical between a miss and its hits. */
const resultPart = (r: Reply) => r.text.slice(0, r.text.indexOf('"usage":'))

t.test('the same parse twice: the second is a hit, byte-identical but for usage, at the hit price (0), one model request', async (t) => {
  const c = await app.customer(100)
  const before = modelRequests()
  const first = await app.call('/v1/parse', { key: c.key, body: invoice(1) })
  t.equal(first.status, 200, first.text)
  t.equal(first.headers.get('service-cache'), 'miss')
  t.same(first.body.usage, { credits: 10, balanceRemaining: 90, livemode: true })
  // The same body, its keys in another order: the same call.
  const second = await app.call('/v1/parse', { key: c.key, body: { docType: 'invoice', text: invoice(1).text } })
  t.equal(second.status, 200, second.text)
  t.equal(second.headers.get('service-cache'), 'hit')
  t.same(second.body.usage, { credits: 0, balanceRemaining: 90, cached: true, livemode: true })
  t.equal(resultPart(second), resultPart(first), 'the result is byte-identical')
  t.not(second.headers.get('x-request-id'), first.headers.get('x-request-id'))
  t.equal(second.headers.get('service-credits-charged'), '0')
  t.equal(modelRequests() - before, 1, 'the fake model received one request')
  await app.expectLedger(t, c.accountId, 90)

  const log = await app.call('/v1/requests?endpoint=/v1/parse', { key: c.key })
  t.same(
    log.body.requests.map((r: { cache?: string; credits: number }) => [r.cache, r.credits]),
    [
      ['hit', 0],
      ['miss', 10],
    ],
    'the request log marks the hit',
  )
  const owner = await signedInMember(app, c.accountId, 'owner')
  const hitRow = `/dashboard/requests/${second.headers.get('x-request-id')}`
  t.match((await owner.get('/dashboard/requests')).text, /<span class="pill">cached<\/span>/, 'so does the dashboard')
  t.match((await owner.get(hitRow)).text, /hit: the stored result of an identical call/)
  const usage = await app.services.db.sql(`select credits, cached from usage_events where account_id = ? order by id`, [c.accountId])
  t.same(
    usage.map((u) => [Number(u.credits), u.cached]),
    [
      [10, false],
      [0, true],
    ],
    'so do the usage events',
  )
  const today = new Date().toISOString().slice(0, 10)
  const daily = await app.call('/v1/usage', { key: c.key })
  t.same(daily.body.daily, [{ date: today, endpoint: 'parse', calls: 2, credits: 10, cachedCalls: 1 }], 'and GET /v1/usage')
  await app.services.modelRequests.flush()
  const period = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) }
  const costs = await costReport(app.services.db, period)
  const line = costs.capabilities.find((l) => l.capability === 'parse')!
  t.ok(line.providerCostUsd > 0, `the miss cost ${line.providerCostUsd} USD`)
  t.equal(line.cacheHits, 1, '/admin/costs counts the hit')
  t.ok(Math.abs(line.providerCostSavedUsd - line.providerCostUsd) < 1e-6, 'and the provider cost it saved: what the miss cost')
  t.equal(costs.total.providerCostSavedUsd, line.providerCostSavedUsd)
  const [stored] = await app.services.db.sql(`select result from result_cache where account_id = ?`, [c.accountId])
  t.notOk(String(stored!.result).includes('Northwind'), 'the result is encrypted at rest')

  const replay = await app.call('/v1/parse', { key: c.key, body: invoice(1), headers: { 'Idempotency-Key': 'k1' } })
  const again = await app.call('/v1/parse', { key: c.key, body: invoice(1), headers: { 'Idempotency-Key': 'k1' } })
  t.equal(again.text, replay.text, 'a hit under an Idempotency-Key replays byte for byte')
  t.same(replay.body.usage.cached, true)
})

t.test('Service-Cache: no-store calls the model and neither reads nor writes the cache', async (t) => {
  const c = await app.customer(100)
  await app.call('/v1/parse', { key: c.key, body: invoice(2) })
  const before = modelRequests()
  const bypass = await app.call('/v1/parse', { key: c.key, body: invoice(2), headers: { 'Service-Cache': 'no-store' } })
  t.equal(bypass.status, 200, bypass.text)
  t.equal(bypass.headers.get('service-cache'), 'bypass')
  t.same(bypass.body.usage, { credits: 10, balanceRemaining: 80, livemode: true })
  t.equal(modelRequests() - before, 1, 'the model was asked')
  const fresh = await app.call('/v1/parse', { key: c.key, body: invoice(3), headers: { 'Service-Cache': 'no-store' } })
  t.equal(fresh.headers.get('service-cache'), 'bypass')
  const after = await app.call('/v1/parse', { key: c.key, body: invoice(3) })
  t.equal(after.headers.get('service-cache'), 'miss', 'a no-store call stored nothing')
  await app.expectLedger(t, c.accountId, 60)
})

t.test('another account misses; a test key never gets a live result', async (t) => {
  const a = await app.customer(100)
  const b = await app.customer(100)
  await app.call('/v1/parse', { key: a.key, body: invoice(4) })
  const before = modelRequests()
  const other = await app.call('/v1/parse', { key: b.key, body: invoice(4) })
  t.equal(other.headers.get('service-cache'), 'miss')
  t.equal(other.body.usage.credits, 10)
  t.equal(modelRequests() - before, 1)

  const testKey = await createKey(app.services.db, a.accountId, { name: 'test', mode: 'test' })
  const test = await app.call('/v1/parse', { key: testKey.key, body: invoice(4) })
  t.equal(test.status, 200, test.text)
  t.not(test.headers.get('service-cache'), 'hit')
  t.same(test.body.usage, { credits: 0, balanceRemaining: 90, livemode: false })
  t.same(JSON.parse(resultPart(test).slice(0, -1) + '}'), capability().example.response, 'the test key got the example')
  t.equal(modelRequests() - before, 1, 'and no model request')
})

t.test('DELETE /v1/cache empties the account’s cache (one audit entry); the next call misses', async (t) => {
  const c = await app.customer(100)
  const d = await app.customer(100)
  await app.call('/v1/parse', { key: c.key, body: invoice(5) })
  await app.call('/v1/parse', { key: c.key, body: invoice(6) })
  await app.call('/v1/parse', { key: d.key, body: invoice(5) })
  const emptied = await app.call('/v1/cache', { key: c.key, method: 'DELETE' })
  t.equal(emptied.status, 200, emptied.text)
  t.same(emptied.body, { results: 2, livemode: true })
  const [entry] = await app.services.db.sql(
    `select action, actor_type, details from audit_entries where account_id = ? and action = 'cache.emptied'`,
    [c.accountId],
  )
  t.match(entry, { action: 'cache.emptied', actor_type: 'key', details: { results: 2 } })
  const again = await app.call('/v1/parse', { key: c.key, body: invoice(5) })
  t.equal(again.headers.get('service-cache'), 'miss')
  t.equal(again.body.usage.credits, 10)
  const other = await app.call('/v1/parse', { key: d.key, body: invoice(5) })
  t.equal(other.headers.get('service-cache'), 'hit', 'another account’s cache is untouched')
})

t.test('a dry run quotes the hit price when the result is cached; async calls bypass the cache', async (t) => {
  const c = await app.customer(100)
  const dry = () => app.call('/v1/parse', { key: c.key, body: invoice(7), headers: { 'Service-Dry-Run': '1' } })
  t.match((await dry()).body, { wouldCharge: 10, price: 10 })
  t.notOk((await dry()).body.cached)
  await app.call('/v1/parse', { key: c.key, body: invoice(7) })
  t.match((await dry()).body, { wouldCharge: 0, price: 10, cached: true })
  const accepted = await app.call('/v1/parse', { key: c.key, body: { ...invoice(7), async: true } })
  t.equal(accepted.status, 202, accepted.text)
  t.equal(accepted.headers.get('service-cache'), 'bypass')
})

t.test('another manifest version or another model route misses; the same ones hit from another instance', async (t) => {
  const c = await app.customer(100)
  await app.call('/v1/parse', { key: c.key, body: invoice(8) })
  const same = await startTestApp(t, {
    resultCache: true,
    databaseUrl: database.url,
    provider: fakeServerProvider(fake.baseURL),
    capabilities: [capability()],
  })
  t.equal((await same.call('/v1/parse', { key: c.key, body: invoice(8) })).headers.get('service-cache'), 'hit')
  const bumped = await startTestApp(t, {
    resultCache: true,
    databaseUrl: database.url,
    provider: fakeServerProvider(fake.baseURL),
    capabilities: [capability(2)],
  })
  t.equal((await bumped.call('/v1/parse', { key: c.key, body: invoice(8) })).headers.get('service-cache'), 'miss', 'version 2 misses')
  const routed = await startTestApp(t, {
    resultCache: true,
    databaseUrl: database.url,
    provider: provider({ parse: 'routed-model' }),
    capabilities: [capability()],
  })
  t.equal((await routed.call('/v1/parse', { key: c.key, body: invoice(8) })).headers.get('service-cache'), 'miss', 'another route misses')
})

t.test('maintenance prunes results past RESULT_CACHE_TTL_HOURS', async (t) => {
  const c = await app.customer(100)
  await app.call('/v1/parse', { key: c.key, body: invoice(9) })
  const later = new Date(Date.now() + (48 * 3600 + 60) * 1000)
  const report = await runMaintenance({ ...app.services, now: () => later })
  t.ok(report.cachedResultsRemoved >= 1, `${report.cachedResultsRemoved} removed`)
  const left = await app.services.db.sql(`select 1 from result_cache where account_id = ?`, [c.accountId])
  t.equal(left.length, 0)
})

t.test('a document read from a fileUrl is keyed by its bytes: the same URL serving other bytes misses', async (t) => {
  let served = plainPdf('Invoice INV-100 from Vendor1 Ltd, total 10.00 EUR')
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(served)).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoice.pdf`
  const c = await app.customer(100)
  const call = () => app.call('/v1/parse', { key: c.key, body: { fileUrl, docType: 'invoice' } })
  const first = await call()
  t.equal(first.status, 200, first.text)
  t.equal(first.headers.get('service-cache'), 'miss')
  t.equal((await call()).headers.get('service-cache'), 'hit', 'the same bytes')
  served = plainPdf('Invoice INV-200 from Vendor2 Ltd, total 20.00 EUR')
  t.equal((await call()).headers.get('service-cache'), 'miss', 'new bytes at the same URL')
})
