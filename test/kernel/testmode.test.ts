// Test-mode keys (issue 30): every capability answers a ksk_test_ key with its example, valid under the
// published document (every answer app.call() receives is checked against it), with the live stages before it
// (auth, rate limit, pause, validation, idempotency) and none after it: the balance, the ledger and the model see
// nothing. Service-Test-Outcome answers an error as live would; an async call's webhook is signed and delivered.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { mockProvider, startTestApp, testCapability } from '../helpers/app.ts'

// The model answers only the live classify calls these tests make, with a valid classification.
let modelCalls = 0
const provider = mockProvider(() => {
  modelCalls++
  return { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing problem.' }
})
const app = await startTestApp(t, {
  provider,
  worker: true,
  config: { callbacksAllowPrivate: true, webhookRetryDelays: [0.2, 0.2], webhookTimeoutMs: 1000 },
})
const capabilities = [...app.services.capabilities.values()]

/** An account with `credits` and a test key beside its live one. */
async function testCustomer(credits = 50) {
  const live = await app.customer(credits)
  const test = await createKey(app.services.db, live.accountId, { name: 'sandbox', mode: 'test' })
  return { ...live, testKey: test.key, testKeyId: test.id }
}

t.test(
  'every capability answers a test key with its example, valid under the published schema; nothing charged, no model call',
  async (t) => {
    const c = await testCustomer(0) // no credits at all: a test call needs none
    t.match(c.testKey, /^ksk_test_[0-9A-Za-z]{32}$/)
    for (const cap of capabilities) {
      const res = await app.call(`/v1/${cap.name}`, { key: c.testKey, body: cap.example.request })
      if (cap.name === 'transcribe') {
        // Paused in config/defaults.json: the live stage 3 answers before any example, as for a live key.
        t.equal(res.status, 503, 'transcribe is paused for test keys too')
        t.equal(res.body.error.code, 'inference_unavailable')
        continue
      }
      t.equal(res.status, 200, `${cap.name}: ${res.text.slice(0, 200)}`)
      const { usage, ...result } = res.body
      t.same(usage, { credits: 0, balanceRemaining: 0, livemode: false }, `${cap.name}: usage says nothing was charged, in test mode`)
      t.same(result, cap.example.response, `${cap.name}: the example`)
      t.ok(res.headers.get('ratelimit-limit'), `${cap.name}: rate-limit headers as live`)
    }
    t.equal(modelCalls, 0, 'the model was never called')
    await app.expectLedger(t, c.accountId, 0)
  },
)

t.test('the same validation, idempotency and limits as a live key', async (t) => {
  const c = await testCustomer(50)
  const bad = await app.call('/v1/classify', { key: c.testKey, body: { text: '' } })
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, 'invalid_request')
  t.equal(bad.body.error.requestId, bad.headers.get('x-request-id'))

  const body = { text: 'charged twice', labels: ['billing', 'technical'] }
  const first = await app.call('/v1/classify', { key: c.testKey, body, headers: { 'idempotency-key': 'k-1' } })
  const again = await app.call('/v1/classify', { key: c.testKey, body, headers: { 'idempotency-key': 'k-1' } })
  t.equal(again.status, 200)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.equal(again.text, first.text, 'the recorded answer, byte for byte')
  const other = await app.call('/v1/classify', { key: c.testKey, body: { ...body, text: 'x' }, headers: { 'idempotency-key': 'k-1' } })
  t.equal(other.status, 409)
  t.equal(other.body.error.code, 'idempotency_key_reused')

  // The live key of the same account with the same Idempotency-Key is a new call, charged: test and live are apart.
  const live = await app.call('/v1/classify', { key: c.key, body, headers: { 'idempotency-key': 'k-1' } })
  t.equal(live.status, 200)
  t.equal(live.headers.get('idempotent-replayed'), null)
  t.equal(live.body.usage.credits, 2)
  t.equal(modelCalls, 1, 'the live call alone reached the model')
  await app.expectLedger(t, c.accountId, 48)

  const dry = await app.call('/v1/classify', { key: c.testKey, body, headers: { 'service-dry-run': '1' } })
  t.match(dry.body, { dryRun: true, liveStatus: 200, wouldCharge: 0, price: 2, balance: 48 })
})

t.test('the rate limit counts a test key apart, at the same limit', async (t) => {
  const small = await startTestApp(t, { capabilities: [testCapability({ name: 'tiny', ratePerMinute: 2 })] })
  const live = await small.customer(10)
  const { key } = await createKey(small.services.db, live.accountId, { mode: 'test' })
  const body = { text: 'hi' }
  t.equal((await small.call('/v1/tiny', { key, body })).status, 200)
  t.equal((await small.call('/v1/tiny', { key, body })).status, 200)
  const third = await small.call('/v1/tiny', { key, body })
  t.equal(third.status, 429)
  t.ok(Number(third.headers.get('retry-after')) > 0, 'Retry-After as live')
  t.equal((await small.call('/v1/tiny', { key: live.key, body })).status, 200, "the live key's bucket is its own")
})

t.test('Service-Test-Outcome answers the error as live would, charging nothing', async (t) => {
  const c = await testCustomer(50)
  const body = { text: 'charged twice', labels: ['billing', 'technical'] }
  const call = (outcome: string, extra: Record<string, string> = {}) =>
    app.call('/v1/classify', { key: c.testKey, body, headers: { 'service-test-outcome': outcome, ...extra } })

  const failed = await call('inference_failed')
  t.equal(failed.status, 502)
  t.same(Object.keys(failed.body.error).sort(), ['code', 'message', 'requestId'])
  t.match(failed.body.error, { code: 'inference_failed', requestId: failed.headers.get('x-request-id') })

  const limited = await call('rate_limited')
  t.equal(limited.status, 429)
  t.equal(limited.body.error.code, 'rate_limited')
  t.equal(limited.headers.get('ratelimit-remaining'), '0')
  t.equal(limited.headers.get('retry-after'), limited.headers.get('ratelimit-reset'))

  const broke = await call('insufficient_credits')
  t.equal(broke.status, 402)
  t.equal(broke.body.error.code, 'insufficient_credits')

  const outage = await call('service_unavailable')
  t.equal(outage.status, 503)
  t.equal(outage.body.error.code, 'service_unavailable')
  t.ok(Number(outage.headers.get('retry-after')) >= 1, 'with Retry-After, as a live outage')
  const complex = await call('document_too_complex')
  t.equal(complex.status, 422)
  t.equal(complex.body.error.code, 'document_too_complex')

  const inUse = await call('idempotency_key_in_use', { 'idempotency-key': 'x' })
  t.equal(inUse.status, 409)
  t.equal(inUse.headers.get('retry-after'), '1')

  // Validation comes first, as live: a bad body is a 400 whatever outcome is asked for.
  const invalid = await app.call('/v1/classify', {
    key: c.testKey,
    body: { text: '' },
    headers: { 'service-test-outcome': 'inference_failed' },
  })
  t.equal(invalid.status, 400)

  const unknown = await call('teapot')
  t.equal(unknown.status, 400)
  t.match(unknown.body.error, { code: 'invalid_request', details: [{ path: 'header:Service-Test-Outcome' }] })

  const live = await app.call('/v1/classify', { key: c.key, body, headers: { 'service-test-outcome': 'inference_failed' } })
  t.equal(live.status, 400, 'a live key is refused the header, never silently served')
  t.match(live.body.error.message, /test keys/)
  await app.expectLedger(t, c.accountId, 50)
  t.equal(modelCalls, 1, 'only the live call of the previous test ever reached the model')
})

/** A receiver on loopback that answers 200 and keeps what it got. */
async function receiver(t: Tap) {
  const hits: Array<{ headers: IncomingMessage['headers']; body: string }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      hits.push({ headers: req.headers, body })
      res.writeHead(200).end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits }
}
type Tap = { teardown(fn: () => unknown): void }

async function until<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const got = await probe()
    if (got !== undefined) return got
  }
  return undefined
}

t.test(
  'an async parse with a test key: 202, the job succeeds with the example, a webhook signed with the test secret is delivered',
  async (t) => {
    const c = await testCustomer(0)
    const { secret } = await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now(), undefined, 'test')
    const hook = await receiver(t)
    const parse = app.services.capabilities.get('parse')!
    const res = await app.call('/v1/parse', { key: c.testKey, body: { ...parse.example.request, async: true, callbackUrl: hook.url } })
    t.equal(res.status, 202)
    t.match(res.body, { jobId: String, status: 'queued', requestId: res.headers.get('x-request-id') })
    const job = await app.call(`/v1/jobs/${res.body.jobId}`, { key: c.testKey })
    t.match(job.body, { status: 'succeeded', endpoint: '/v1/parse', result: { usage: { credits: 0, livemode: false } } })
    t.notOk('balanceRemaining' in job.body.result.usage, "a test job's result carries no live balance")
    const hit = await until(async () => hook.hits[0])
    t.ok(hit, 'the webhook arrived')
    const payload = new Webhook(secret).verify(hit!.body, {
      'webhook-id': String(hit!.headers['webhook-id']),
      'webhook-timestamp': String(hit!.headers['webhook-timestamp']),
      'webhook-signature': String(hit!.headers['webhook-signature']),
    }) as any
    t.match(
      payload,
      { event: 'job.completed', livemode: false, job: { jobId: res.body.jobId, status: 'succeeded' } },
      "signed with the account's test secret",
    )

    // A run-stage outcome fails the job after its 202, as a live model failure would.
    const failing = await app.call('/v1/parse', {
      key: c.testKey,
      body: { ...parse.example.request, async: true },
      headers: { 'service-test-outcome': 'inference_failed' },
    })
    t.equal(failing.status, 202)
    const failed = await app.call(`/v1/jobs/${failing.body.jobId}`, { key: c.testKey })
    t.match(failed.body, { status: 'failed', errorCode: 'inference_failed' })
    await app.expectLedger(t, c.accountId, 0)
    t.equal(modelCalls, 1)

    // Test jobs and live jobs are apart.
    t.equal((await app.call(`/v1/jobs/${res.body.jobId}`, { key: c.key })).status, 404, 'a live key does not see a test job')
    const listed = await app.call('/v1/jobs', { key: c.testKey })
    t.same(
      listed.body.jobs.map((j: any) => j.jobId),
      [failing.body.jobId, res.body.jobId],
    )
    t.same((await app.call('/v1/jobs', { key: c.key })).body.jobs, [])
    t.same((await app.call('/v1/usage', { key: c.testKey })).body, { entries: [], daily: [] }, "a test key's ledger is empty")
  },
)

t.test('admin mints a test key with "mode": "test"; a test key takes no spend cap', async (t) => {
  const ADMIN = 'admin-token-for-test-mode-0123456789'
  const admin = await startTestApp(t, { capabilities: [testCapability({ name: 'echo' })], config: { adminToken: ADMIN } })
  const acct = await admin.call('/admin/accounts', { body: { email: 'tm@example.test' }, key: ADMIN })
  const key = await admin.call(`/admin/accounts/${acct.body.id}/keys`, { body: { mode: 'test', name: 'ci' }, key: ADMIN })
  t.equal(key.status, 201)
  t.match(key.body, { key: /^ksk_test_[0-9A-Za-z]{32}$/, prefix: /^ksk_test_/, mode: 'test', name: 'ci' })
  const live = await admin.call(`/admin/accounts/${acct.body.id}/keys`, { body: {}, key: ADMIN })
  t.match(live.body, { key: /^ksk_live_/, mode: 'live' })
  const capped = await admin.call(`/admin/accounts/${acct.body.id}/keys`, { body: { mode: 'test', monthlySpendCap: 5 }, key: ADMIN })
  t.equal(capped.status, 400)
  const bad = await admin.call(`/admin/accounts/${acct.body.id}/keys`, { body: { mode: 'sandbox' }, key: ADMIN })
  t.equal(bad.status, 400)
  const res = await admin.call('/v1/echo', { key: key.body.key, body: { text: 'hello' } })
  t.equal(res.status, 200)
  t.equal(res.body.usage.credits, 0)
})

t.test('an MCP agent with a test key (the official client) gets the example, free, without a model call', async (t) => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const c = await testCustomer(0)
  const client = new Client({ name: 'testmode', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${c.testKey}` } } }),
  )
  t.teardown(() => client.close())
  const classify = app.services.capabilities.get('classify')!
  const result = await client.callTool({ name: 'classify', arguments: classify.example.request })
  t.notOk(result.isError, JSON.stringify(result.content))
  t.same(result.structuredContent, {
    ...(classify.example.response as object),
    usage: { credits: 0, balanceRemaining: 0, livemode: false },
  })
  await app.expectLedger(t, c.accountId, 0)
  t.equal(modelCalls, 1, 'still only the one live call of an earlier test')
})
