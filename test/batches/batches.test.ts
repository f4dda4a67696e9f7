// C19: batches — per-item validation and money, results in item order, cancel, expiry, test keys, idempotency.
import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/run/registry.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'
import { Client } from '../../sdk/dist/index.js'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { signedInMember } from '../helpers/teams.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function batchEnded(app: TestApp, key: string, batchId: string, ms = 60_000) {
  for (const end = Date.now() + ms; ; await sleep(100)) {
    const res = await app.call(`/v1/batches/${batchId}`, { key })
    if (res.body.completedAt || Date.now() > end) return res.body
  }
}

const items = (texts: string[]) => texts.map((text, i) => ({ customId: `item-${i}`, body: { text } }))

t.test('a batch: each item charged its discounted price on success, free on failure, results in item order', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await app.customer(100)
  const res = await app.call('/v1/batches', {
    key: c.key,
    body: { endpoint: 'jobdoc', window: '24h', items: items(['a', 'fail', 'sleep:200', 'b']) },
  })
  t.equal(res.status, 202, res.text)
  t.match(res.body, { batchId: /^bat_[0-9a-f]{32}$/, status: 'queued', livemode: true })
  t.same(res.body.credits, { held: 24 }, '7 less 20 % is 5.6, rounded up to 6, for each of 4 items')
  t.same(res.body.counts, { total: 4, queued: 4, running: 0, succeeded: 0, failed: 0, cancelled: 0, expired: 0 })
  t.equal(res.headers.get('location'), `/v1/batches/${res.body.batchId}`)
  t.equal((await app.ledger(c.accountId)).reserved, 24, 'the whole quote held at acceptance')

  const done = await batchEnded(app, c.key, res.body.batchId)
  t.equal(done.status, 'completed')
  t.same(done.counts, { total: 4, queued: 0, running: 0, succeeded: 3, failed: 1, cancelled: 0, expired: 0 })
  t.same(done.credits, { held: 0, charged: 18 })
  await app.expectLedger(t, c.accountId, 82)

  const results = await app.call(`/v1/batches/${res.body.batchId}/results`, { key: c.key })
  t.equal(results.status, 200)
  t.match(results.headers.get('content-type'), /application\/x-ndjson/)
  const lines = results.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.same(
    lines.map((l) => [l.customId, l.status]),
    [
      ['item-0', 'succeeded'],
      ['item-1', 'failed'],
      ['item-2', 'succeeded'],
      ['item-3', 'succeeded'],
    ],
  )
  t.match(lines[0].result, { echo: 'a', usage: { credits: 6, livemode: true } }, 'the sync answer, usage included')
  t.same(lines[1].error, { code: 'inference_failed', message: 'The model provider failed.' })

  const listed = await app.call('/v1/batches', { key: c.key })
  t.same(
    listed.body.batches.map((b: { batchId: string }) => b.batchId),
    [res.body.batchId],
  )
  const jobs = await app.call('/v1/jobs', { key: c.key })
  t.same(jobs.body.jobs, [], 'the items are not listed as jobs of their own')
})

t.test('validation: one 400 naming each bad item, nothing held', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] })
  const c = await app.customer(100)
  const res = await app.call('/v1/batches', {
    key: c.key,
    body: {
      endpoint: 'jobdoc',
      items: [
        { customId: 'ok', body: { text: 'a' } },
        { customId: 'missing', body: {} },
        { customId: 'ok', body: { text: 'b' } },
        { customId: 'async', body: { text: 'c', async: true } },
      ],
    },
  })
  t.equal(res.status, 400)
  t.equal(res.body.error.code, 'invalid_request')
  t.same(
    res.body.error.details.map((d: { path: string }) => d.path),
    ['/items/1/body/text', '/items/2/customId', '/items/3/body/async'],
  )
  t.same(await app.ledger(c.accountId), { balance: 100, reserved: 0, ledgerSum: 100 })
  const [n] = await app.services.db.sql(`select count(*)::int as n from batches`)
  t.equal(n!.n, 0)

  const unknown = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'nope', items: items(['a']) } })
  t.equal(unknown.status, 400)
  t.same(unknown.body.error.details, [{ path: '/endpoint', message: 'not an endpoint of this API' }])
})

t.test('money at acceptance: 402 and the spend cap as a call; the dry run quotes it', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] })
  const c = await app.customer(20)
  const three = { endpoint: 'jobdoc', items: items(['a', 'b', 'c']) }
  const quote = await app.call('/v1/batches', { key: c.key, body: three, headers: { 'service-dry-run': '1' } })
  t.equal(quote.status, 200)
  t.same(quote.body, {
    dryRun: true,
    endpoint: '/v1/jobdoc',
    liveStatus: 402,
    items: 3,
    wouldCharge: 0,
    price: 21,
    balance: 20,
    error: { code: 'insufficient_credits', message: quote.body.error.message },
  })
  const refused = await app.call('/v1/batches', { key: c.key, body: three })
  t.equal(refused.status, 402)
  t.equal(refused.body.error.code, 'insufficient_credits')
  const cheaper = await app.call('/v1/batches', { key: c.key, body: { ...three, window: '24h' }, headers: { 'service-dry-run': '1' } })
  t.match(cheaper.body, { liveStatus: 202, wouldCharge: 18, price: 18 })
  t.same(await app.ledger(c.accountId), { balance: 20, reserved: 0, ledgerSum: 20 }, 'nothing held by a dry run or a refusal')

  const capped = await app.customer(100, { plan: 'team', monthlySpendCap: 10 })
  const over = await app.call('/v1/batches', { key: capped.key, body: three })
  t.equal(over.status, 402)
  t.equal(over.body.error.code, 'spend_cap_reached')
})

t.test('Idempotency-Key replays the 202; cancel ends the queued items free', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] }) // no worker: the items stay queued
  const c = await app.customer(100)
  const body = { endpoint: 'jobdoc', items: items(['a', 'b', 'c']) }
  const first = await app.call('/v1/batches', { key: c.key, body, headers: { 'idempotency-key': 'batch-1' } })
  const again = await app.call('/v1/batches', { key: c.key, body, headers: { 'idempotency-key': 'batch-1' } })
  t.equal(again.status, 202)
  t.equal(again.text, first.text, 'the same answer, byte for byte')
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  const other = await app.call('/v1/batches', { key: c.key, body: { ...body, window: '24h' }, headers: { 'idempotency-key': 'batch-1' } })
  t.equal(other.status, 409)
  t.equal((await app.ledger(c.accountId)).reserved, 21, 'held once')

  const cancelled = await app.call(`/v1/batches/${first.body.batchId}/cancel`, { key: c.key, method: 'POST' })
  t.equal(cancelled.status, 200)
  t.equal(cancelled.body.status, 'cancelled')
  t.same(cancelled.body.counts, { total: 3, queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 3, expired: 0 })
  t.ok(cancelled.body.completedAt)
  await app.expectLedger(t, c.accountId, 100)
  const lines = (await app.call(`/v1/batches/${first.body.batchId}/results`, { key: c.key })).text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.same(
    lines.map((l) => l.status),
    ['cancelled', 'cancelled', 'cancelled'],
  )
  const stranger = await app.customer(0)
  t.equal((await app.call(`/v1/batches/${first.body.batchId}`, { key: stranger.key })).status, 404, 'another account: 404')
  t.equal((await app.call(`/v1/batches/bat_nope`, { key: c.key })).status, 404)
})

t.test('a one-item batch and the same async call hold one price, replay their 202, charge on success, free on failure', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await app.customer(100)
  const batch = (text: string, key: string) =>
    app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', items: items([text]) }, headers: { 'idempotency-key': key } })
  const job = (text: string, key: string) =>
    app.call('/v1/jobdoc', { key: c.key, body: { text, async: true }, headers: { 'idempotency-key': key } })
  const accepted = [
    await batch('sleep:300', 'b-ok'),
    await job('sleep:300', 'j-ok'),
    await batch('fail', 'b-fail'),
    await job('fail', 'j-fail'),
  ]
  t.same(
    accepted.map((r) => [r.status, r.body.credits]),
    Array.from({ length: 4 }, () => [202, { held: 7 }]),
    'each holds the price',
  )
  const replays = [await batch('sleep:300', 'b-ok'), await job('sleep:300', 'j-ok')]
  t.same(
    replays.map((r) => [r.text, r.headers.get('idempotent-replayed')]),
    [
      [accepted[0]!.text, 'true'],
      [accepted[1]!.text, 'true'],
    ],
    'a retry replays the 202 and holds nothing more',
  )
  t.same(await app.ledger(c.accountId), { balance: 100, reserved: 28, ledgerSum: 100 }, 'four prices held, none charged')
  await batchEnded(app, c.key, accepted[0]!.body.batchId)
  await batchEnded(app, c.key, accepted[2]!.body.batchId)
  for (const j of [accepted[1]!, accepted[3]!])
    for (const end = Date.now() + 15_000; Date.now() < end; await sleep(50)) {
      const status = (await app.call(`/v1/jobs/${j.body.jobId}`, { key: c.key })).body.status
      if (status === 'succeeded' || status === 'failed') break
    }
  t.same(
    await app.ledger(c.accountId),
    { balance: 86, reserved: 0, ledgerSum: 86 },
    'the two successes charged once each, the failures free',
  )
})

t.test('items not ended 24 hours after acceptance expire, free', async (t) => {
  let now = new Date('2026-03-01T10:00:00Z')
  const app = await startTestApp(t, { capabilities: [jobCapability], now: () => now })
  const c = await app.customer(100)
  const res = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', items: items(['a', 'b']) } })
  now = new Date('2026-03-02T10:00:01Z')
  await runMaintenance(app.services)
  const view = (await app.call(`/v1/batches/${res.body.batchId}`, { key: c.key })).body
  t.equal(view.status, 'expired')
  t.same(view.counts, { total: 2, queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0, expired: 2 })
  await app.expectLedger(t, c.accountId, 100)
})

t.test('a test key: every item answers the example at once, free', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] })
  const c = await app.customer(100)
  const { key } = await createKey(app.services.db, c.accountId, { name: 'sandbox', mode: 'test' })
  const res = await app.call('/v1/batches', { key, body: { endpoint: 'jobdoc', items: items(['a', 'b']) } })
  t.equal(res.status, 202)
  t.match(res.body, { livemode: false, credits: { held: 0 } })
  const view = (await app.call(`/v1/batches/${res.body.batchId}`, { key })).body
  t.match(view, { status: 'completed', livemode: false, counts: { succeeded: 2 }, credits: { held: 0, charged: 0 } })
  const lines = (await app.call(`/v1/batches/${res.body.batchId}/results`, { key })).text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.same(lines[0], {
    customId: 'item-0',
    status: 'succeeded',
    result: { ...(jobCapability.example.response as object), usage: { credits: 0, livemode: false } },
  })
  await app.expectLedger(t, c.accountId, 100)
  t.equal((await app.call(`/v1/batches/${res.body.batchId}`, { key: c.key })).status, 404, 'a live key does not see test batches')
})

t.test('the SDK: createBatch with its dry-run quote, getBatch, and the results as an async iterator', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await app.customer(100)
  const api = new Client({ apiKey: c.key, baseUrl: app.url, maxRetries: 0 })
  const input = { endpoint: 'jobdoc', window: '24h' as const, items: items(['one', 'two', 'fail']) }
  const quote = await api.createBatch(input, { dryRun: true })
  t.match(quote, { dryRun: true, liveStatus: 202, wouldCharge: 18, items: 3 })
  const accepted = await api.createBatch(input)
  t.same(accepted.credits, { held: 18 })
  let batch = await api.getBatch(accepted.batchId)
  for (const end = Date.now() + 30_000; !batch.completedAt && Date.now() < end; await sleep(100))
    batch = await api.getBatch(accepted.batchId)
  t.same(batch.counts, { total: 3, queued: 0, running: 0, succeeded: 2, failed: 1, cancelled: 0, expired: 0 })
  const seen: string[] = []
  for await (const line of api.getBatchResults(accepted.batchId)) seen.push(`${line.customId} ${line.status}`)
  t.same(seen, ['item-0 succeeded', 'item-1 succeeded', 'item-2 failed'])
  t.same(
    (await api.batches()).batches.map((b) => b.batchId),
    [accepted.batchId],
  )
  await app.expectLedger(t, c.accountId, 88)
})

t.test('the dashboard’s Batches page: progress, counts, credits and the download of the results', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] }) // no worker: one batch stays queued
  const c = await app.customer(100)
  const done = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', items: items(['a', 'b']) } })
  await app.call(`/v1/batches/${done.body.batchId}/cancel`, { key: c.key, method: 'POST' })
  const waiting = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', window: '24h', items: items(['c', 'd', 'e']) } })
  const viewer = await signedInMember(app, c.accountId, 'viewer')
  const list = await viewer.get('/dashboard/batches')
  t.equal(list.status, 200)
  t.match(list.text, 'href="/dashboard/batches"', 'in the navigation')
  const row = (id: string) => new RegExp(`data-batch-id="${id}"[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? ''
  t.match(row(waiting.body.batchId), /queued[\s\S]*0 of 3 ended[\s\S]*18 \/ 0/, 'queued, nothing ended, 18 credits held')
  t.match(row(done.body.batchId), /cancelled[\s\S]*2 of 2 ended/)
  const download = await viewer.get(`/dashboard/batches/${done.body.batchId}/results`)
  t.equal(download.status, 200)
  t.match(download.headers.get('content-disposition'), /attachment/)
  t.same(
    download.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).customId),
    ['item-0', 'item-1'],
  )
  const stranger = await app.customer(0)
  const outsider = await signedInMember(app, stranger.accountId, 'owner')
  t.equal((await outsider.get(`/dashboard/batches/${done.body.batchId}/results`)).status, 404, 'another account’s batch')
  t.notMatch((await outsider.get('/dashboard/batches')).text, done.body.batchId)
})

t.test('the callbackUrl gets the batch object once, signed, when every item has ended', async (t) => {
  const config = { callbacksAllowPrivate: true, webhookRetryDelays: [0.2], webhookTimeoutMs: 500 }
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config })
  const c = await app.customer(100)
  const { secret } = await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const hits: Array<{ headers: IncomingHttpHeaders; body: string }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      hits.push({ headers: req.headers, body })
      res.writeHead(200).end()
    })
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/batches`
  const res = await app.call('/v1/batches', {
    key: c.key,
    body: { endpoint: 'jobdoc', callbackUrl: url, items: items(['a', 'fail', 'b']) },
  })
  t.equal(res.status, 202)
  for (const end = Date.now() + 30_000; !hits.length && Date.now() < end;) await sleep(100)
  await sleep(500) // … and no second one
  t.equal(hits.length, 1, 'once')
  const hit = hits[0]!
  t.equal(hit.headers['x-service-event'], 'batch.completed')
  t.equal(hit.headers['x-service-signature'], 'sha256=' + createHmac('sha256', secret).update(hit.body).digest('hex'), 'signed')
  const body = JSON.parse(hit.body)
  t.match(body, { event: 'batch.completed', livemode: true, deliveryId: hit.headers['webhook-id'] })
  t.same(body.batch, (await app.call(`/v1/batches/${res.body.batchId}`, { key: c.key })).body, 'the batch object as GET shows it')
  t.same(body.batch.counts, { total: 3, queued: 0, running: 0, succeeded: 2, failed: 1, cancelled: 0, expired: 0 })
})

t.test('price by size per item, quoted at acceptance from each item’s documents, then discounted and rounded up', async (t) => {
  const parseCap = checkManifest(parse as unknown as CapabilityManifest, 'parse', 'capabilities/parse')
  const app = await startTestApp(t, { capabilities: [parseCap] }) // no worker: the holds stay to be read
  const c = await app.customer(1000)
  const pdf = (pages: number) => ({
    file: {
      data: plainPdf(...Array.from({ length: pages }, (_, i) => `Folio ${i + 1}: Invoice INV-${i + 1}`)).toString('base64'),
      mimeType: 'application/pdf',
    },
  })
  const body = {
    endpoint: '/v1/parse',
    window: '24h',
    items: [
      { customId: 'twelve-pages', body: pdf(12) },
      { customId: 'thirty-pages', body: pdf(30) },
      { customId: 'a-line', body: { text: 'Invoice 1 from ACME' } },
    ],
  }
  // parse: 10 credits, +1 a page over 10 → 12, 30 and 10; less 20 %, each rounded up: 10, 24 and 8.
  const quote = await app.call('/v1/batches', { key: c.key, body, headers: { 'service-dry-run': '1' } })
  t.match(quote.body, { liveStatus: 202, wouldCharge: 42, price: 42 })
  const res = await app.call('/v1/batches', { key: c.key, body })
  t.same(res.body.credits, { held: 42 })
  const holds = await app.services.db.sql<{ amount: string; size: { units: number } | null }>(
    `select h.amount, h.size from jobs j join holds h on h.id = j.hold_id where j.batch_id is not null order by j.batch_index`,
  )
  t.same(
    holds.map((h) => [Number(h.amount), h.size?.units ?? null]),
    [
      [10, 12],
      [24, 30],
      [8, null],
    ],
    'each item holds its own size-priced amount, and keeps the size it was measured at',
  )
})

t.test('a batch is removed with its items, 30 days after its last item ended', async (t) => {
  let now = new Date('2026-03-01T10:00:00Z')
  const app = await startTestApp(t, { capabilities: [jobCapability], now: () => now })
  const c = await app.customer(100)
  const res = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', items: items(['a']) } })
  await app.call(`/v1/batches/${res.body.batchId}/cancel`, { key: c.key, method: 'POST' })
  now = new Date('2026-03-31T09:00:00Z')
  t.equal((await runMaintenance(app.services)).batchesRemoved, 0, 'kept for 30 days')
  now = new Date('2026-03-31T10:00:01Z')
  t.equal((await runMaintenance(app.services)).batchesRemoved, 1)
  t.equal((await app.call(`/v1/batches/${res.body.batchId}`, { key: c.key })).status, 404)
})

t.test('a batch takes the key’s call permission and its scope for the endpoint', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability] })
  const c = await app.customer(100)
  const body = { endpoint: 'jobdoc', items: items(['a']) }
  const reader = await createKey(app.services.db, c.accountId, { name: 'reader', permissions: 'read' })
  t.equal((await app.call('/v1/batches', { key: reader.key, body })).status, 403, 'a read key cannot')
  t.equal((await app.call('/v1/batches', { key: reader.key })).status, 200, 'but reads the list')
  const scoped = await createKey(app.services.db, c.accountId, { name: 'scoped', permissions: 'call', capabilities: ['other'] })
  t.equal((await app.call('/v1/batches', { key: scoped.key, body })).status, 403, 'a key scoped to other endpoints cannot')
  const outcome = await app.call('/v1/batches', { key: c.key, body, headers: { 'service-test-outcome': 'internal_error' } })
  t.equal(outcome.status, 400, 'Service-Test-Outcome is for test keys')
  t.same(await app.ledger(c.accountId), { balance: 100, reserved: 0, ledgerSum: 100 })
})
