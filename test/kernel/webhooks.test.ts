// C8: signed callbacks with retries, the address guard at acceptance and at every attempt, attempts log.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { startWorker } from '../../core/jobs/worker.ts'
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
  t.same(Object.keys(body).sort(), ['createdAt', 'deliveryId', 'event', 'job'])
  t.match(body, {
    deliveryId: /^dlv_/,
    event: 'job.completed',
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
  const verifies = (secret: string, hit: Hit) => {
    try {
      return new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as any
    } catch (e) {
      return (e as Error).message
    }
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

t.test('no signing secret: nothing is sent, the delivery is recorded as skipped', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(10)
  const hook = await receiver(t, [200])
  const res = await app.call('/v1/jobdoc', { body: { text: 'x', async: true, callbackUrl: hook.url }, key: c.key })
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
  await sleep(300)
  t.equal(hook.hits.length, 0)
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
