// C8: signed callbacks with retries, the address guard at acceptance and at every attempt, attempts log.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { startWorker } from '../../core/worker.ts'
import { runAdmin } from '../../scripts/admin.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Hit {
  headers: IncomingMessage['headers']
  body: string
  path: string
}

/** A receiver on loopback whose answers are scripted: a status per hit, or 'hang'. */
async function receiver(t: any, script: Array<number | 'hang' | 'redirect'>) {
  const hits: Hit[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      hits.push({ headers: req.headers, body, path: req.url ?? '' })
      const next = script[Math.min(hits.length - 1, script.length - 1)]
      if (next === 'hang') return
      if (next === 'redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/redirected` })
        return res.end()
      }
      res.writeHead(next!).end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const port = (server.address() as AddressInfo).port
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${port}/hook`, hits }
}

async function finishedDeliveries(app: TestApp, jobId: string, want: (d: any) => boolean, ms = 20_000) {
  const { listAttempts } = await import('../../core/webhooks/webhooks.ts')
  const end = Date.now() + ms
  for (;;) {
    const d = await listAttempts(app.services.db, jobId)
    if ((d[0] && want(d[0])) || Date.now() > end) return d
    await sleep(100)
  }
}

const fast = { callbacksAllowPrivate: true, webhookRetryDelays: [0.2, 0.2, 0.2, 0.2, 0.2], webhookTimeoutMs: 500 }

t.test('a signed job.completed callback with the exact headers and body', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(10)
  const { secret } = await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32,}$/, 'whsec_ + base64: the form Standard Webhooks libraries take as given')
  const hook = await receiver(t, [200])
  const res = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: c.key })
  t.equal(res.status, 202)
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status === 'delivered')
  t.equal(d?.status, 'delivered')
  t.equal(hook.hits.length, 1)
  const hit = hook.hits[0]!
  const expected = 'sha256=' + createHmac('sha256', secret).update(hit.body).digest('hex')
  const got = String(hit.headers['x-service-signature'])
  t.ok(
    got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected)),
    'signature verifies with an independent HMAC',
  )
  const body = JSON.parse(hit.body)
  t.same(Object.keys(body).sort(), ['createdAt', 'deliveryId', 'event', 'job', 'livemode'])
  t.match(body, {
    deliveryId: /^dlv_/,
    event: 'job.completed',
    livemode: true,
    job: { jobId: res.body.jobId, status: 'succeeded', result: { echo: 'hello' } },
  })
  t.equal(hit.headers['content-type'], 'application/json')
  t.equal(hit.headers['x-service-event'], 'job.completed')
  t.equal(hit.headers['x-service-job-id'], res.body.jobId)
  t.equal(hit.headers['x-service-request-id'], res.body.requestId)
  t.equal(hit.headers['x-service-delivery-id'], body.deliveryId)
  const job = await app.call(`/v1/jobs/${res.body.jobId}`, { key: c.key })
  t.same(job.body, body.job, 'the payload carries the Job object of C7')
  t.same(await app.ledger(c.accountId), { balance: 3, reserved: 0, ledgerSum: 3 }, 'delivery changes nothing about the charge')
})

t.test('Standard Webhooks: the standardwebhooks package verifies every delivery, across a rotation', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(30)
  const first = (await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())).secret
  const hook = await receiver(t, [200])
  const deliver = async () => {
    const res = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: c.key })
    t.equal(res.status, 202)
    const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status !== 'pending')
    t.equal(d?.status, 'delivered')
    return hook.hits.at(-1)!
  }
  const before = await deliver()
  const payload = JSON.parse(before.body)
  t.equal(before.headers['webhook-id'], payload.deliveryId, 'webhook-id is the deliveryId')
  t.ok(Math.abs(Number(before.headers['webhook-timestamp']) - Date.now() / 1000) < 30, 'webhook-timestamp is now, in seconds')
  t.match(before.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/, 'one signature before any rotation')
  t.same(verifies(first, before), payload, 'verified with the secret the account holds')
  t.ok(before.headers['x-service-signature'], 'X-Service-Signature is still sent')

  const second = (await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())).secret
  const during = await deliver()
  t.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'new and previous secret, space-separated')
  t.same(verifies(second, during), JSON.parse(during.body), 'the new secret verifies')
  t.same(verifies(first, during), JSON.parse(during.body), 'the previous secret still verifies for 24 h')
  t.equal(
    during.headers['x-service-signature'],
    'sha256=' + createHmac('sha256', second).update(during.body).digest('hex'),
    'X-Service-Signature uses the new secret',
  )
  const tampered = { ...during, body: during.body.replace('"hello"', '"hellO"') }
  t.equal(verifies(second, tampered), 'No matching signature found', 'a changed body does not verify')
  const stale = { ...during, headers: { ...during.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) } }
  t.equal(verifies(second, stale), 'Message timestamp too old', 'a replayed delivery is refused by its timestamp')

  await app.services.db.sql(`update accounts set webhook_secret_rotated_at = now() - interval '25 hours' where id = ?`, [c.accountId])
  const after = await deliver()
  t.equal(String(after.headers['webhook-signature']).split(' ').length, 1, 'after 24 h only the new secret signs')
  t.same(verifies(second, after), JSON.parse(after.body))
  t.equal(verifies(first, after), 'No matching signature found', 'the previous secret no longer verifies')
})

t.test('500, 500, 200: three attempts with the same deliveryId, each recorded; job.failed too', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(10)
  const { secret } = await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const hook = await receiver(t, [500, 500, 200])
  const res = await app.call('/v1/jobdoc', { body: { text: 'fail', async: true, callbackUrl: hook.url }, key: c.key })
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status !== 'pending')
  t.equal(d?.status, 'delivered')
  t.equal(hook.hits.length, 3)
  t.equal(new Set(hook.hits.map((h) => h.headers['x-service-delivery-id'])).size, 1, 'same deliveryId on every attempt')
  t.equal(new Set(hook.hits.map((h) => h.body)).size, 1, 'the same bytes every time')
  t.ok(hook.hits.every((h) => h.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', secret).update(h.body).digest('hex')))
  t.equal(hook.hits[0]!.headers['x-service-event'], 'job.failed')
  t.same(
    d!.attempts.map((a: any) => [a.attempt, a.statusCode, a.error]),
    [
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 200, null],
    ],
  )
  t.ok(d!.attempts.every((a: any) => typeof a.durationMs === 'number' && a.at))
  t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
})

t.test('a 302 is a failure and is not followed; five retries then failed', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(10)
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const hook = await receiver(t, ['redirect'])
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status === 'failed')
  t.equal(d?.status, 'failed')
  t.equal(d!.attempts.length, 6, 'the first attempt and five retries')
  t.ok(d!.attempts.every((a: any) => a.statusCode === 302))
  t.notOk(
    hook.hits.some((h) => h.path === '/redirected'),
    'the redirect was never followed',
  )
})

t.test('a receiver that never answers times out', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: { ...fast, webhookRetryDelays: [] } })
  const c = await app.customer(10)
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const hook = await receiver(t, ['hang'])
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status === 'failed')
  t.equal(d?.status, 'failed')
  t.match(d!.attempts[0]!.error, /^timeout/)
})

/** The Standard Webhooks verification of a hit with `secret`: the payload, or the library's refusal. */
function verifies(secret: string, hit: Hit): any {
  try {
    return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)
  } catch (e) {
    return (e as Error).message
  }
}

t.test('no signing secret: the 202 warns, nothing is sent, the delivery is skipped with its reason in the API', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(30)
  const hook = await receiver(t, [200])
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
  t.equal(res.status, 202)
  t.match(res.body.warnings, [{ code: 'webhook_secret_missing', message: /no live webhook signing secret/ }], 'the 202 says so')
  const done = await (async () => {
    for (let i = 0; i < 100; i++) {
      const j = await app.call(`/v1/jobs/${res.body.jobId}`, { key: c.key })
      if (j.body.status === 'succeeded') return j
      await sleep(50)
    }
  })()
  t.equal(done?.body.status, 'succeeded')
  const [d] = await finishedDeliveries(app, res.body.jobId, () => true)
  t.equal(d?.status, 'skipped')
  const listed = await app.call(`/v1/jobs/${res.body.jobId}/deliveries`, { key: c.key })
  t.equal(listed.status, 200)
  t.match(listed.body.deliveries, [
    { event: 'job.completed', url: hook.url, status: 'skipped', reason: /no live webhook signing secret/, attempts: [] },
  ])
  await sleep(300)
  t.equal(hook.hits.length, 0)

  const quiet = await app.call('/v1/jobdoc', { body: { text: 'x', async: true }, key: c.key })
  t.equal(quiet.body.warnings, undefined, 'no callbackUrl, no warning')
  const other = await app.customer(10)
  t.equal((await app.call(`/v1/jobs/${res.body.jobId}/deliveries`, { key: other.key })).status, 404, "another account's job is 404")
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const signed = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
  t.equal(signed.status, 202)
  t.equal(signed.body.warnings, undefined, 'with a secret, no warning')
  const [sent] = await finishedDeliveries(app, signed.body.jobId, (d) => d.status !== 'pending')
  t.equal(sent?.status, 'delivered')
  t.equal(sent?.reason, undefined)
})

t.test('quickstart: a fresh account receives a verifiable callback with no other step', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const prev = process.env.DATABASE_URL
  process.env.DATABASE_URL = app.services.db.url
  t.teardown(() => {
    process.env.DATABASE_URL = prev
  })
  const out: string[] = []
  t.equal(await runAdmin(['quickstart'], (line) => out.push(line as string)), 0)
  const env = Object.fromEntries([...out[0]!.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]))
  t.match(env, { KEY: /^ksk_live_/, TEST_KEY: /^ksk_test_/, WEBHOOK_SECRET: /^whsec_/, TEST_WEBHOOK_SECRET: /^whsec_/ })
  t.not(env.WEBHOOK_SECRET, env.TEST_WEBHOOK_SECRET)
  const hook = await receiver(t, [200])

  const live = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: env.KEY })
  t.equal(live.status, 202)
  t.equal(live.body.warnings, undefined, 'nothing stands in the way of the callback')
  const [d] = await finishedDeliveries(app, live.body.jobId, (d) => d.status !== 'pending')
  t.equal(d?.status, 'delivered')
  t.match(verifies(env.WEBHOOK_SECRET!, hook.hits[0]!), { event: 'job.completed', livemode: true, job: { jobId: live.body.jobId } })

  const test = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: env.TEST_KEY })
  t.equal(test.status, 202)
  t.equal(test.body.warnings, undefined)
  const [dt] = await finishedDeliveries(app, test.body.jobId, (d) => d.status !== 'pending')
  t.equal(dt?.status, 'delivered')
  t.match(verifies(env.TEST_WEBHOOK_SECRET!, hook.hits[1]!), { livemode: false, job: { jobId: test.body.jobId } })

  const entries = await app.services.db.sql<{ action: string; details: { livemode: boolean } }>(
    `select action, details from audit_entries where account_id = ? and target_type = 'webhook_secret' order by id`,
    [env.ACCOUNT_ID],
  )
  t.same(
    entries.map((e) => [e.action, e.details.livemode]),
    [
      ['webhook_secret.created', true],
      ['webhook_secret.created', false],
    ],
    'each secret made is one audit entry',
  )
})

t.test("test mode never signs as live: a test key's delivery has its own secret, livemode false, no live balance", async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(4321)
  const testKey = (await createKey(app.services.db, c.accountId, { name: 'sandbox', mode: 'test' })).key
  const live = (await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())).secret
  const hook = await receiver(t, [200])
  const call = async (headers: Record<string, string> = {}) => {
    const res = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: testKey, headers })
    t.equal(res.status, 202)
    return res
  }

  // A live secret alone: the test job's callback is skipped, never signed with it.
  const unsigned = await call()
  t.match(unsigned.body.warnings, [{ code: 'webhook_secret_missing', message: /no test webhook signing secret/ }])
  const [skipped] = await finishedDeliveries(app, unsigned.body.jobId, (d) => d.status !== 'pending')
  t.match(skipped, { status: 'skipped', reason: /no test webhook signing secret.*--mode test/ })
  t.equal(hook.hits.length, 0, 'nothing sent')

  const { secret: test, livemode } = await rotateWebhookSecret(
    app.services.db,
    c.accountId,
    app.services.secrets,
    app.services.now(),
    undefined,
    'test',
  )
  t.equal(livemode, false)
  t.not(test, live)
  for (const [headers, event] of [
    [{}, 'job.completed'],
    [{ 'service-test-outcome': 'inference_failed' }, 'job.failed'],
  ] as const) {
    const res = await call(headers)
    t.equal(res.body.warnings, undefined)
    const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status !== 'pending')
    t.equal(d?.status, 'delivered', event)
    const hit = hook.hits.at(-1)!
    t.equal(verifies(live, hit), 'No matching signature found', `${event}: the live secret does not verify it`)
    t.not(hit.headers['x-service-signature'], 'sha256=' + createHmac('sha256', live).update(hit.body).digest('hex'), 'nor the hex scheme')
    t.equal(hit.headers['x-service-signature'], 'sha256=' + createHmac('sha256', test).update(hit.body).digest('hex'))
    const payload = verifies(test, hit)
    t.match(payload, { event, livemode: false, job: { jobId: res.body.jobId, livemode: false } }, `${event}: the test secret verifies it`)
    t.notOk(hit.body.includes('4321'), `${event}: the live balance is nowhere in it`)
    if (event === 'job.completed') t.same(payload.job.result.usage, { credits: 0, livemode: false }, 'usage: no balance')
    t.same((await app.call(`/v1/jobs/${res.body.jobId}`, { key: testKey })).body, payload.job, 'the job as polled')
  }

  // A live job of the same account is still signed with the live secret only.
  const liveJob = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl: hook.url }, key: c.key })
  await finishedDeliveries(app, liveJob.body.jobId, (d) => d.status !== 'pending')
  t.match(verifies(live, hook.hits.at(-1)!), { livemode: true })
  t.equal(verifies(test, hook.hits.at(-1)!), 'No matching signature found')

  // The test secret rotates like the live one: both sign for 24 h.
  const next = (await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now(), undefined, 'test')).secret
  const rotated = await call()
  await finishedDeliveries(app, rotated.body.jobId, (d) => d.status !== 'pending')
  t.match(verifies(next, hook.hits.at(-1)!), { livemode: false })
  t.match(verifies(test, hook.hits.at(-1)!), { livemode: false }, 'the previous test secret still verifies for 24 h')
  t.equal(verifies(live, hook.hits.at(-1)!), 'No matching signature found')
  t.equal((await app.call(`/v1/jobs/${rotated.body.jobId}/deliveries`, { key: c.key })).status, 404, 'a live key does not read a test job')
  t.equal((await app.call(`/v1/jobs/${rotated.body.jobId}/deliveries`, { key: testKey })).status, 200)
})

t.test('a worker restart mid-retry still delivers', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false, config: { ...fast, webhookRetryDelays: [1, 1] } })
  const c = await app.customer(10)
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const hook = await receiver(t, [500, 200])
  const first = await startWorker(app.services, { concurrency: 1 })
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
  await finishedDeliveries(app, res.body.jobId, (d) => d.attempts.length === 1)
  await first.stop()
  const second = await startWorker(app.services, { concurrency: 1 })
  t.teardown(() => second.stop())
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status === 'delivered')
  t.equal(d?.status, 'delivered')
  t.equal(hook.hits.length, 2)
})

t.test('the address guard: at acceptance (400 invalid_callback_url) and at each attempt', async (t) => {
  let answer = '93.184.216.34'
  const resolver = async (host: string) => {
    if (host === 'rebind.example') return [{ address: answer, family: 4 as const }]
    if (host === 'loopback.example') return [{ address: '127.0.0.1', family: 4 as const }]
    if (host === 'mixed.example')
      return [
        { address: '93.184.216.34', family: 4 as const },
        { address: '10.0.0.7', family: 4 as const },
      ]
    if (host === 'v6.example') return [{ address: '::ffff:127.0.0.1', family: 6 as const }]
    return [{ address: '93.184.216.34', family: 4 as const }]
  }
  const app = await startTestApp(t, {
    capabilities: [jobCapability],
    worker: true,
    resolver,
    config: { webhookRetryDelays: [], webhookTimeoutMs: 500 },
  })
  const c = await app.customer(100)
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, app.services.now())
  const refused = [
    'http://public.example/hook',
    'https://loopback.example/hook',
    'https://mixed.example/hook',
    'https://v6.example/hook',
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://224.0.0.1/hook',
    'https://[::1]/hook',
    'https://[fe80::1]/hook',
    'https://[fc00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a00:1]/hook',
    'https://user:pw@public.example/hook',
  ]
  for (const callbackUrl of refused) {
    const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl }, key: c.key })
    t.equal(res.status, 400, callbackUrl)
    t.equal(res.body.error.code, 'invalid_callback_url', callbackUrl)
  }
  t.equal((await app.ledger(c.accountId)).reserved, 0, 'refused at acceptance: no hold, no job')
  // Accepted while the name resolves to a public address, refused at delivery when it rebinds to loopback.
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: 'https://rebind.example/hook' }, key: c.key })
  t.equal(res.status, 202)
  answer = '127.0.0.1'
  const [d] = await finishedDeliveries(app, res.body.jobId, (d) => d.status === 'failed')
  t.equal(d?.status, 'failed')
  t.match(d!.attempts[0]!.error, /^refused/, 'the attempt was refused before connecting')
})
