// The kernel keeps one time: the injected clock (services.now()), in TypeScript and in the SQL it sends. Moving
// that clock is enough to expire holds, idempotency records, cached keys and a rotated webhook secret.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { SYNC_HOLD_TTL_SECONDS } from '../../core/pipeline/capability-call.ts'
import { reserve } from '../../core/wallet/wallet.ts'
import { listAttempts } from '../../core/webhooks/webhooks.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
let clock = Date.now()
const now = () => new Date(clock)
const echo = testCapability({ name: 'echo' })
const app = await startTestApp(t, {
  capabilities: [echo, jobCapability],
  now,
  worker: true,
  config: { callbacksAllowPrivate: true, webhookRetryDelays: [], webhookTimeoutMs: 2000 },
})

t.test('a stranded sync hold and an idempotency record expire when the clock passes their time', async (t) => {
  clock = Date.now()
  const c = await app.customer(10)
  const held = await reserve(app.services.db, {
    accountId: c.accountId,
    keyId: c.keyId,
    price: 4,
    endpoint: 'echo',
    requestId: 'req_stranded',
    holdTtlSeconds: SYNC_HOLD_TTL_SECONDS,
    now: now(),
  })
  t.equal(held.outcome, 'ok')
  const replayed = await app.call('/v1/echo', { body: { text: 'once' }, key: c.key, headers: { 'idempotency-key': 'k-clock' } })
  t.equal(replayed.status, 200)
  t.same(await app.ledger(c.accountId), { balance: 5, reserved: 4, ledgerSum: 5 })

  clock += (SYNC_HOLD_TTL_SECONDS - 1) * 1000
  let report = await runMaintenance(app.services)
  t.equal(report.holdsReleased, 0, 'the hold is still within its time')
  clock += 2000
  report = await runMaintenance(app.services)
  t.equal(report.holdsReleased, 1, 'released once the injected clock passes expires_at')
  t.equal(report.idempotencyRecordsRemoved, 0, 'the key is still within its 24 hours')
  t.same(await app.ledger(c.accountId), { balance: 5, reserved: 0, ledgerSum: 5 })

  clock += 24 * 3600_000
  const again = await app.call('/v1/echo', { body: { text: 'other' }, key: c.key, headers: { 'idempotency-key': 'k-clock' } })
  t.equal(again.status, 200, 'after 24 hours of the injected clock the key is free for a new request')
  t.notOk(again.headers.get('idempotent-replayed'))
})

t.test('a cached key lives for its TTL of the injected clock', async (t) => {
  clock = Date.now()
  const c = await app.customer(10)
  t.equal((await app.call('/v1/account', { key: c.key })).status, 200, 'looked up and cached')
  // Revoked behind the cache's back with the notification lost (test/kernel/key-revocation.test.ts has the
  // notified path): this instance serves its cache until the TTL.
  await app.services.db.sql(`alter table api_keys disable trigger api_key_revoked`)
  await app.services.db.sql(`update api_keys set revoked_at = ? where id = ?`, [now(), c.keyId])
  await app.services.db.sql(`alter table api_keys enable trigger api_key_revoked`)
  t.equal((await app.call('/v1/account', { key: c.key })).status, 200, 'still cached')
  clock += 60_001
  t.equal((await app.call('/v1/account', { key: c.key })).status, 401, 'expired by the clock, not by waiting')
})

t.test('a rotated webhook secret stops signing 24 hours after the rotation, by the injected clock', async (t) => {
  clock = Date.now()
  const hits: IncomingMessage['headers'][] = []
  const server = createServer((req, res) => {
    hits.push(req.headers)
    req.resume().on('end', () => res.writeHead(200).end())
  }).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => server.close())
  const callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const c = await app.customer(30)
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, now())
  await rotateWebhookSecret(app.services.db, c.accountId, app.services.secrets, now())
  const deliver = async () => {
    const res = await app.call('/v1/jobdoc', { body: { text: 'hello', async: true, callbackUrl }, key: c.key })
    t.equal(res.status, 202)
    for (let i = 0; i < 200; i++) {
      const [d] = await listAttempts(app.services.db, res.body.jobId)
      if (d && d.status !== 'pending') return hits.at(-1)!
      await sleep(100)
    }
    throw new Error('no delivery')
  }
  clock += 23 * 3600_000
  let headers = await deliver()
  t.equal(String(headers['webhook-signature']).split(' ').length, 2, 'within 24 hours both secrets sign')
  t.equal(headers['webhook-timestamp'], String(Math.floor(clock / 1000)), 'the timestamp is the injected time')
  clock += 2 * 3600_000
  headers = await deliver()
  t.equal(String(headers['webhook-signature']).split(' ').length, 1, 'after 24 hours only the new secret signs')
})
