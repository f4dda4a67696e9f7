// The generated SDK (sdk/dist, as a user imports it) against the real app: typed results, charges and
// refusals with the same ledger checks as the HTTP tests (C4), dry runs (C3), idempotent retries (C5),
// jobs (C7), per-call options and response metadata, list methods paging through a real PostgreSQL,
// Retry-After, and webhook verification (C11). Every answer the SDK reads from the app is also held to the
// published OpenAPI document.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import {
  ApiError,
  Client,
  verifyWebhook,
  WebhookVerificationError,
  type ClassifyResponse,
  type DryRun,
  type Job,
  type JobsPage,
  type ResponseInfo,
  type UsagePage,
} from '../../sdk/dist/index.js'
import { createKey } from '../../core/accounts/keys.ts'
import { sign } from '../../core/webhooks/webhooks.ts'
import { startTestApp, mockProvider, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const classifyAnswer = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing question.' }
const app = await startTestApp(t, { provider: mockProvider(() => classifyAnswer) })
const input = { text: 'I was charged twice', labels: ['billing', 'technical'] }

/** A fetch that holds every answer of the app to the published document before the SDK reads it. */
function checked(a: TestApp): typeof fetch {
  return async (url, init) => {
    const res = await fetch(url, init)
    const text = await res.text()
    const { pathname, search } = new URL(url instanceof Request ? url.url : url)
    a.contract.check(init?.method ?? 'GET', pathname + search, res.status, res.headers, text)
    return new Response(res.status === 204 ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}

/** A fetch that records every request's headers before sending it. */
function recording() {
  const sent: Array<Record<string, string>> = []
  const fetcher: typeof fetch = async (url, init) => {
    sent.push({ ...(init?.headers as Record<string, string>) })
    return fetch(url, init)
  }
  return { sent, fetcher }
}

t.test('a capability method returns the typed result with usage and is charged exactly the price', async (t) => {
  const c = await app.customer(10)
  const { sent, fetcher } = recording()
  const client = new Client({ apiKey: c.key, baseUrl: app.url, fetch: fetcher })
  const result: ClassifyResponse = await client.classify(input)
  t.same(result, { ...classifyAnswer, usage: { credits: 2, balanceRemaining: 8, livemode: true } })
  t.match(sent[0]!['idempotency-key'], /^sdk_[0-9a-f-]{36}$/, 'retries are on, so the call carries its own Idempotency-Key')
  await app.expectLedger(t, c.accountId, 8)
})

t.test('a response lost on the way back is retried under the same key and charged once (C5)', async (t) => {
  const c = await app.customer(10)
  const keys: string[] = []
  let lost = false
  const client = new Client({
    apiKey: c.key,
    baseUrl: app.url,
    maxRetryDelayMs: 10,
    fetch: async (url, init) => {
      keys.push((init?.headers as Record<string, string>)['idempotency-key']!)
      const res = await fetch(url, init)
      if (!lost) {
        lost = true
        await res.text()
        throw new TypeError('fetch failed: socket hang up') // the server charged; the client never saw it
      }
      return res
    },
  })
  const result = await client.classify(input)
  t.equal(keys.length, 2, 'sent twice')
  t.equal(keys[0], keys[1], 'with one Idempotency-Key')
  t.same(result.usage, { credits: 2, balanceRemaining: 8, livemode: true }, 'the replay reports the first charge')
  await app.expectLedger(t, c.accountId, 8)
})

t.test('402: a typed ApiError, not retried, nothing charged (C2, C4)', async (t) => {
  const c = await app.customer(1)
  const { sent, fetcher } = recording()
  const client = new Client({ apiKey: c.key, baseUrl: app.url, fetch: fetcher })
  const error = await client.classify(input).catch((e: unknown) => e)
  t.ok(error instanceof ApiError)
  const e = error as ApiError
  t.same({ status: e.status, code: e.code }, { status: 402, code: 'insufficient_credits' })
  t.match(e.requestId, /^req_/)
  t.match(e.message, /Nothing was charged/)
  t.equal(sent.length, 1, 'a 402 is never retried')
  await app.expectLedger(t, c.accountId, 1)
})

t.test('400 invalid_request carries details; a bad key is 401', async (t) => {
  const c = await app.customer(10)
  const error = (await new Client({ apiKey: c.key, baseUrl: app.url }).classify({ text: 'x' } as never).catch((e) => e)) as ApiError
  t.same({ status: error.status, code: error.code }, { status: 400, code: 'invalid_request' })
  t.ok(error.details.some((d) => d.path === '/labels'))
  await app.expectLedger(t, c.accountId, 10)
  const denied = (await new Client({ apiKey: 'ksk_live_nope', baseUrl: app.url }).account().catch((e) => e)) as ApiError
  t.same({ status: denied.status, code: denied.code }, { status: 401, code: 'unauthorized' })
})

t.test('dryRun returns the DryRun report and charges nothing (C3)', async (t) => {
  const c = await app.customer(10)
  const { sent, fetcher } = recording()
  const report: DryRun = await new Client({ apiKey: c.key, baseUrl: app.url, fetch: fetcher }).classify(input, { dryRun: true })
  t.same(report, { dryRun: true, endpoint: '/v1/classify', liveStatus: 200, wouldCharge: 2, price: 2, balance: 10 })
  t.equal(sent[0]!['service-dry-run'], '1')
  await app.expectLedger(t, c.accountId, 10)
})

t.test('account() reads the key’s account', async (t) => {
  const c = await app.customer(25)
  const account = await new Client({ apiKey: c.key, baseUrl: app.url }).account()
  t.equal(account.balance, 25)
  t.equal(account.available, 25)
})

t.test('getJob() and waitForJob() follow an async job to its end; charged once (C7)', async (t) => {
  const jobs = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await jobs.customer(20)
  const client = new Client({ apiKey: c.key, baseUrl: jobs.url })
  const accepted = await jobs.call('/v1/jobdoc', { body: { text: 'hello', async: true }, key: c.key })
  t.equal(accepted.status, 202)
  const job: Job = await client.waitForJob(accepted.body.jobId, { intervalMs: 50, timeoutMs: 30_000 })
  t.equal(job.status, 'succeeded')
  t.same(job.result, { echo: 'hello', usage: { credits: 7, balanceRemaining: 13, livemode: true } })
  t.same(await client.getJob(job.jobId), job)
  await jobs.expectLedger(t, c.accountId, 13)

  const slow = await jobs.call('/v1/jobdoc', { body: { text: 'sleep:3000', async: true }, key: c.key })
  const timeout = (await client.waitForJob(slow.body.jobId, { intervalMs: 50, timeoutMs: 200 }).catch((e) => e)) as ApiError
  t.equal(timeout.code, 'timeout', 'waitForJob gives up after timeoutMs')
  const aborted = new AbortController()
  setTimeout(() => aborted.abort(new Error('stop')), 100)
  await t.rejects(client.waitForJob(slow.body.jobId, { intervalMs: 50, signal: aborted.signal }), { message: 'stop' }, 'and stops on abort')
  const missing = (await client.getJob('00000000-0000-4000-8000-000000000000').catch((e) => e)) as ApiError
  t.same({ status: missing.status, code: missing.code }, { status: 404, code: 'not_found' })
})

t.test('retries: 429, 503, 502 with Retry-After and idempotency_key_in_use; Retry-After waited exactly or thrown at once', async (t) => {
  let script: Array<{ status: number; code?: string; retryAfter?: string }> = []
  const seen: IncomingHttpHeaders[] = []
  const times: number[] = []
  const server = createServer((req, res) => {
    seen.push(req.headers)
    times.push(Date.now())
    req.resume()
    const step = script.shift() ?? { status: 200 }
    res.writeHead(step.status, {
      'content-type': 'application/json',
      'x-request-id': 'req_fake',
      ...(step.retryAfter ? { 'retry-after': step.retryAfter } : {}),
    })
    res.end(
      JSON.stringify(
        step.status === 200
          ? { ...classifyAnswer, usage: { credits: 2, balanceRemaining: 0, livemode: true } }
          : { error: { code: step.code, message: 'no', requestId: 'req_fake' } },
      ),
    )
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = new Client({ apiKey: 'k', baseUrl, maxRetries: 3, maxRetryDelayMs: 2000 })
  const run = async (steps: typeof script) => {
    script = steps
    seen.length = 0
    times.length = 0
    return client.classify(input).then(
      (r) => r,
      (e: ApiError) => e,
    )
  }

  let r = await run([
    { status: 503, code: 'inference_unavailable' },
    { status: 429, code: 'rate_limited' },
    { status: 409, code: 'idempotency_key_in_use' },
  ])
  t.notOk(r instanceof ApiError, 'succeeds on the fourth attempt')
  t.equal(seen.length, 4)
  t.equal(new Set(seen.map((h) => h['idempotency-key'])).size, 1, 'every attempt carries the same Idempotency-Key')

  await run([{ status: 429, code: 'rate_limited', retryAfter: '1' }])
  t.ok(times[1]! - times[0]! >= 950, `Retry-After: 1 is honoured (waited ${times[1]! - times[0]!} ms)`)

  // A Retry-After longer than maxRetryDelayMs (2 s here) is not waited, nor retried early: the caller decides.
  for (const refusal of [
    { status: 429, code: 'rate_limited', retryAfter: '60' },
    { status: 503, code: 'service_unavailable', retryAfter: '5' },
    { status: 502, code: 'inference_failed', retryAfter: '30' },
  ]) {
    const started = Date.now()
    r = await run([refusal, refusal, refusal])
    t.same(
      [(r as ApiError).status, (r as ApiError).retryAfter, seen.length],
      [refusal.status, Number(refusal.retryAfter), 1],
      `${refusal.status} with Retry-After: ${refusal.retryAfter} throws at once`,
    )
    t.ok(Date.now() - started < 900, `without waiting (${Date.now() - started} ms)`)
  }
  t.equal(client.lastResponse?.retryAfter, 30, 'lastResponse says when to come back')

  // A 502 whose Retry-After fits is a provider that said "later": retried under the same key, charged once.
  r = await run([{ status: 502, code: 'inference_failed', retryAfter: '1' }])
  t.notOk(r instanceof ApiError, 'a 502 with Retry-After: 1 is retried and succeeds')
  t.ok(times[1]! - times[0]! >= 950, `after the second it asked for (${times[1]! - times[0]!} ms)`)
  t.equal(new Set(seen.map((h) => h['idempotency-key'])).size, 1)

  for (const refusal of [
    { status: 409, code: 'idempotency_key_reused' },
    { status: 400, code: 'invalid_request' },
    { status: 402, code: 'insufficient_credits' },
    { status: 422, code: 'unprocessable' },
    { status: 502, code: 'inference_failed' },
  ]) {
    r = await run([refusal])
    t.equal((r as ApiError).code, refusal.code)
    t.equal(seen.length, 1, `${refusal.status} ${refusal.code} is not retried`)
  }

  r = await run(Array.from({ length: 5 }, () => ({ status: 503, code: 'inference_unavailable' })))
  t.same([(r as ApiError).status, seen.length], [503, 4], 'gives up after maxRetries and throws the last error')

  script = [{ status: 503, code: 'inference_unavailable' }]
  seen.length = 0
  const once = (await new Client({ apiKey: 'k', baseUrl, maxRetries: 0 }).classify(input).catch((e) => e)) as ApiError
  t.equal(once.status, 503)
  t.equal(seen.length, 1, 'maxRetries: 0 sends once')
  t.equal(seen[0]!['idempotency-key'], undefined, 'and adds no key of its own')
})

t.test('lastResponse and onResponse: request id, rate-limit headers and the replay flag of each answer', async (t) => {
  const c = await app.customer(10)
  const client = new Client({ apiKey: c.key, baseUrl: app.url, fetch: checked(app) })
  t.equal(client.lastResponse, null, 'nothing before the first call')
  const seen: ResponseInfo[] = []
  const first = await client.classify(input, { idempotencyKey: 'order-1182', onResponse: (r) => seen.push(r) })
  const info = client.lastResponse!
  t.match(info, { status: 200, requestId: /^req_/, replayed: false, rateLimit: { limit: 60, remaining: 59 }, retryAfter: null })
  t.ok(info.rateLimit!.resetSeconds > 0 && info.rateLimit!.resetSeconds <= 60, 'the window resets within a minute')
  t.equal(seen[0], info, 'onResponse gets the same metadata')
  const again = await client.classify(input, { idempotencyKey: 'order-1182' })
  t.same(again, first, 'the same answer')
  t.equal(client.lastResponse!.replayed, true, 'marked as a replay')
  t.not(client.lastResponse!.requestId, info.requestId, 'with a request id of its own')
  await app.expectLedger(t, c.accountId, 8)
  await client.classify({ text: 'x' } as never).catch(() => {})
  t.equal(client.lastResponse!.status, 400, 'an error answer is the last response too')
  t.equal((await client.account(), client.lastResponse!.rateLimit), null, 'a route without rate-limit headers says null')
})

t.test('per-call headers and testOutcome reach the server; a test key answers the outcome asked for', async (t) => {
  const c = await app.customer(10)
  const testKey = await createKey(app.services.db, c.accountId, { mode: 'test' })
  const { sent, fetcher } = recording()
  const client = new Client({ apiKey: testKey.key, baseUrl: app.url, fetch: fetcher, maxRetries: 0 })
  const poor = (await client
    .classify(input, { testOutcome: 'insufficient_credits', headers: { 'X-Trace': 'abc' } })
    .catch((e) => e)) as ApiError
  t.same([poor.status, poor.code], [402, 'insufficient_credits'])
  t.same([sent[0]!['service-test-outcome'], sent[0]!['x-trace']], ['insufficient_credits', 'abc'])
  const limited = (await client.classify(input, { headers: { 'Service-Test-Outcome': 'rate_limited' } }).catch((e) => e)) as ApiError
  t.same([limited.status, limited.code], [429, 'rate_limited'], 'a header given by hand works the same')
  t.ok(limited.retryAfter! > 0, 'with its Retry-After')
  t.equal((await client.classify(input)).usage.credits, 0, 'and without one, the example answer, free')
  const live = new Client({ apiKey: c.key, baseUrl: app.url, maxRetries: 0 })
  const refused = (await live.classify(input, { testOutcome: 'rate_limited' }).catch((e) => e)) as ApiError
  t.same([refused.status, refused.code], [400, 'invalid_request'], 'a live key may not ask for an outcome')
  await app.expectLedger(t, c.accountId, 10)
})

t.test('list methods page through 250 jobs, requests and ledger entries of a real database', async (t) => {
  const lists = await startTestApp(t, { capabilities: [jobCapability] })
  const c = await lists.customer(250 * 7 * 2)
  const client = new Client({ apiKey: c.key, baseUrl: lists.url, fetch: checked(lists) })
  // 250 calls charged at once (ledger entries) and 250 accepted as jobs (no worker: they stay queued).
  const calls = Array.from({ length: 500 }, (_, i) => ({ text: `row ${i}`, ...(i % 2 ? { async: true } : {}) }))
  const statuses: number[] = []
  for (let i = 0; i < calls.length; i += 20)
    for (const res of await Promise.all(calls.slice(i, i + 20).map((body) => lists.call('/v1/jobdoc', { body, key: c.key }))))
      statuses.push(res.status)
  t.same([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 202).length], [250, 250], '250 charged, 250 accepted')

  const pages: number[] = []
  for await (const page of client.jobs({ limit: 100 }).pages()) pages.push(page.jobs.length)
  t.same(pages, [100, 100, 50], 'jobs: three pages of at most 100')
  const jobs: Array<JobsPage['jobs'][number]> = []
  for await (const job of client.jobs({ limit: 100 })) jobs.push(job)
  t.equal(new Set(jobs.map((j) => j.jobId)).size, 250, 'every job once')
  t.ok(
    jobs.every((j, i) => i === 0 || j.createdAt <= jobs[i - 1]!.createdAt),
    'newest first',
  )
  const first = await client.jobs({ limit: 100 })
  t.same([first.jobs.length, typeof first.nextCursor], [100, 'string'], 'awaited: the first page, with its cursor')

  const entries: Array<UsagePage['entries'][number]> = []
  for await (const entry of client.usage({ limit: 200, endpoint: 'jobdoc' })) entries.push(entry)
  t.equal(entries.length, 250, 'usage: every charge')
  t.same(new Set(entries.map((e) => e.kind)), new Set(['charge']))
  t.equal(new Set(entries.map((e) => e.id)).size, 250)

  let accepted = 0
  let served = 0
  for await (const row of client.requests({ limit: 37, status: '202' })) accepted += row.status === 202 ? 1 : 0
  for await (const row of client.requests({ endpoint: 'jobdoc' })) served += row.status === 200 || row.status === 202 ? 1 : 0
  t.same([accepted, served], [250, 500], 'requests: the 250 accepted ones in pages of 37, and all 500')

  const bad = (await client.usage({ limit: 500 }).catch((e) => e)) as ApiError
  t.same([bad.status, bad.code], [400, 'invalid_request'], 'a limit over the maximum is refused by the server')
})

t.test('verifyWebhook: X-Service-Signature and Standard Webhooks, constant-time HMAC, timestamps (C11)', async (t) => {
  const secret = 'whsec_' + Buffer.from('a secret of twenty-four b').toString('base64')
  const now = new Date('2026-01-01T12:00:00Z')
  const body = JSON.stringify({
    deliveryId: 'd1',
    event: 'job.completed',
    createdAt: now.toISOString(),
    job: { jobId: 'j', status: 'succeeded' },
  })

  const legacy = { 'x-service-signature': sign(secret, body) }
  const event = await verifyWebhook(body, legacy, secret, { now: () => now })
  t.equal(event.deliveryId, 'd1', 'a delivery signed by the service verifies and parses')
  await t.rejects(
    verifyWebhook(body.replace('d1', 'd2'), legacy, secret, { now: () => now }),
    WebhookVerificationError,
    'a changed body fails',
  )
  await t.rejects(verifyWebhook(body, legacy, 'whsec_other', { now: () => now }), WebhookVerificationError, 'another secret fails')
  await t.rejects(verifyWebhook(body, {}, secret, { now: () => now }), WebhookVerificationError, 'an unsigned delivery fails')
  const later = new Date(now.getTime() + 4 * 3600_000)
  await t.rejects(
    verifyWebhook(body, legacy, secret, { now: () => later }),
    /outside the accepted window/,
    'a payload older than maxAgeSeconds fails',
  )

  const ts = String(Math.floor(now.getTime() / 1000))
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const v1 = 'v1,' + createHmac('sha256', key).update(`msg_1.${ts}.${body}`).digest('base64')
  const standard = { 'webhook-id': 'msg_1', 'webhook-timestamp': ts, 'webhook-signature': `v1,bm90IGl0 ${v1}` }
  t.equal(
    (await verifyWebhook(body, new Headers(standard), secret, { now: () => now })).event,
    'job.completed',
    'Standard Webhooks: any listed signature may match (rotation)',
  )
  await t.rejects(
    verifyWebhook(body, { ...standard, 'webhook-id': 'msg_2' }, secret, { now: () => now }),
    WebhookVerificationError,
    'the id is signed',
  )
  const stale = new Date(now.getTime() + 301_000)
  await t.rejects(verifyWebhook(body, standard, secret, { now: () => stale }), /too old/, 'a timestamp beyond the tolerance fails (replay)')
  await t.rejects(
    verifyWebhook(body, { ...standard, 'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64') }, secret, { now: () => now }),
    WebhookVerificationError,
    'the Standard Webhooks headers, when present, are the ones checked',
  )
})
