// C17 webhook endpoints and the event log: CRUD with audit entries, ping, rotation with two signatures for 24 h,
// event filters, job events, resend with the same webhook-id, test-mode events invisible to live keys, retention.
import t from 'tap'
import { createKey } from '../../core/accounts/keys.ts'
import { DELIVER_EVENT_TASK } from '../../core/events/emit.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { verifies, waitFor, webhookReceiver } from '../helpers/webhook-receiver.ts'

const fast = { callbacksAllowPrivate: true, webhookRetryDelays: [0.2, 0.2, 0.2, 0.2, 0.2], webhookTimeoutMs: 1000 }
/** Every name resolves to a public address (no DNS in tests): endpoints that are created, never called. */
const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }]
const settle = () => new Promise((r) => setTimeout(r, 400))

async function endpoint(app: TestApp, key: string, url: string, events?: string[]) {
  const res = await app.call('/v1/webhook-endpoints', { key, body: { url, ...(events ? { events } : {}) } })
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${res.text}`)
  return res.body as { id: string; secret: string }
}

async function finishedJob(app: TestApp, key: string, text: string) {
  const res = await app.call('/v1/jobdoc', { key, body: { text, async: true } })
  await waitFor(
    () => app.call(`/v1/jobs/${res.body.jobId}`, { key }),
    (r) => r.body.status === 'succeeded' || r.body.status === 'failed',
  )
  return res.body.jobId as string
}

t.test('endpoints: create (secret once), list, get, update, disable, delete; each change one audit entry', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], config: fast, resolver: publicResolver })
  const c = await app.customer(10)
  const created = await app.call('/v1/webhook-endpoints', {
    key: c.key,
    body: { url: 'https://hooks.example.com/a', events: ['balance.*'], description: 'ops' },
  })
  t.equal(created.status, 201)
  t.match(created.body, { id: /^we_/, url: 'https://hooks.example.com/a', events: ['balance.*'], enabled: true, secret: /^whsec_/ })
  const id = created.body.id
  const list = await app.call('/v1/webhook-endpoints', { key: c.key })
  t.equal(list.body.endpoints.length, 1)
  t.notOk('secret' in list.body.endpoints[0], 'no secret in a list')
  t.notOk('secret' in (await app.call(`/v1/webhook-endpoints/${id}`, { key: c.key })).body, 'nor in a get')
  const patched = await app.call(`/v1/webhook-endpoints/${id}`, { method: 'PATCH', key: c.key, body: { enabled: false, events: null } })
  t.match(patched.body, { enabled: false, events: null, description: 'ops' })
  t.equal((await app.call(`/v1/webhook-endpoints/${id}/rotate-secret`, { method: 'POST', key: c.key })).status, 200)
  const del = await app.call(`/v1/webhook-endpoints/${id}`, { method: 'DELETE', key: c.key })
  t.equal(del.status, 204)
  t.equal((await app.call(`/v1/webhook-endpoints/${id}`, { key: c.key })).status, 404)
  const audit = await app.services.db.sql<{ action: string; target_id: string }>(
    `select action, target_id from audit_entries where account_id = ? and target_type = 'webhook_endpoint' order by id`,
    [c.accountId],
  )
  t.same(
    audit.map((a) => a.action),
    ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.deleted'],
  )
  t.ok(audit.every((a) => a.target_id === id))
  const [{ details }] = (await app.services.db.sql(
    `select details from audit_entries where action = 'webhook_endpoint.secret_rotated'`,
  )) as any
  t.notOk(JSON.stringify(details).includes('whsec_'), 'no secret in the audit log')

  t.equal(
    (await app.call('/v1/webhook-endpoints', { key: c.key, body: { url: 'https://x.example.com', events: ['balance.lo'] } })).body.error
      .code,
    'invalid_request',
    'an unknown event type is refused',
  )
  for (let i = 0; i < 16; i++) await endpoint(app, c.key, `https://hooks.example.com/${i}`)
  const seventeenth = await app.call('/v1/webhook-endpoints', { key: c.key, body: { url: 'https://hooks.example.com/17' } })
  t.equal(seventeenth.status, 400, 'at most 16 endpoints')
  const testKey = await createKey(app.services.db, c.accountId, { mode: 'test' }, app.services.secrets)
  t.equal((await app.call('/v1/webhook-endpoints', { key: testKey.key })).status, 403, 'a test key manages no endpoint')
})

t.test('endpoint URLs follow C8: https and public when private addresses are not allowed', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], config: { callbacksAllowPrivate: false } })
  const c = await app.customer(10)
  for (const url of ['http://hooks.example.com/a', 'https://127.0.0.1/a', 'https://169.254.169.254/latest'])
    t.equal((await app.call('/v1/webhook-endpoints', { key: c.key, body: { url } })).body.error.code, 'invalid_callback_url', url)
})

t.test('ping, rotation (both secrets sign for 24 h), filters, job events, resend with the same webhook-id', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(100)
  const all = await webhookReceiver(t, app.contract)
  const balanceOnly = await webhookReceiver(t, app.contract)
  const a = await endpoint(app, c.key, all.url)
  await endpoint(app, c.key, balanceOnly.url, ['balance.*'])

  const ping = await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })
  t.equal(ping.status, 202)
  await waitFor(
    () => all.hits,
    (h) => h.length >= 1,
  )
  t.match(all.hits[0]!.event, { id: ping.body.eventId, type: 'ping', livemode: true, data: { endpointId: a.id } })
  t.same(verifies(a.secret, all.hits[0]!), all.hits[0]!.event)

  const rotated = (await app.call(`/v1/webhook-endpoints/${a.id}/rotate-secret`, { method: 'POST', key: c.key })).body.secret as string
  await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })
  await waitFor(
    () => all.hits,
    (h) => h.length >= 2,
  )
  const during = all.hits[1]!
  t.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'two v1 signatures during the overlap')
  t.same(verifies(rotated, during), during.event, 'the new secret verifies')
  t.same(verifies(a.secret, during), during.event, 'the previous secret verifies for 24 h')
  await app.services.db.sql(`update webhook_endpoints set secret_rotated_at = now() - interval '25 hours' where id = ?`, [a.id])
  await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })
  await waitFor(
    () => all.hits,
    (h) => h.length >= 3,
  )
  t.equal(verifies(a.secret, all.hits[2]!), 'No matching signature found', 'after 24 h the previous secret no longer verifies')
  t.same(verifies(rotated, all.hits[2]!), all.hits[2]!.event)

  const jobId = await finishedJob(app, c.key, 'hello')
  await waitFor(
    () => all.hits,
    (h) => h.some((x) => x.event.type === 'job.completed'),
  )
  const completed = all.hits.find((h) => h.event.type === 'job.completed')!
  t.match(completed.event, { livemode: true, data: { jobId, status: 'succeeded', result: { echo: 'hello' } } })
  t.same(completed.event.data, (await app.call(`/v1/jobs/${jobId}`, { key: c.key })).body, 'data is the Job object')
  await finishedJob(app, c.key, 'fail')
  await waitFor(
    () => all.hits,
    (h) => h.some((x) => x.event.type === 'job.failed'),
  )
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [90] } })
  await finishedJob(app, c.key, 'x') // 100 - 7 - 7 = 86: below 90
  await waitFor(
    () => balanceOnly.hits,
    (h) => h.length >= 1,
  )
  await waitFor(
    () => all.hits,
    (h) => h.some((x) => x.event.type === 'balance.low'),
  )
  await settle()
  t.same(
    balanceOnly.hits.map((h) => h.event.type),
    ['balance.low'],
    'balance.* never receives job.completed, job.failed or ping',
  )

  const resent = await app.call(`/v1/events/${completed.event.id}/resend`, { key: c.key, body: { endpointId: a.id } })
  t.same(resent.body, { id: completed.event.id, deliveries: 1 })
  t.equal(resent.status, 202)
  await waitFor(
    () => all.hits,
    (h) => h.filter((x) => x.event.id === completed.event.id).length >= 2,
  )
  const both = all.hits.filter((x) => x.event.id === completed.event.id)
  t.equal(both.length, 2, 'a second delivery')
  t.equal(both[1]!.headers['webhook-id'], both[0]!.headers['webhook-id'], 'with the same webhook-id')
  t.equal(both[1]!.body, both[0]!.body, 'and the same body')
  // The receiver sees the POST before the worker commits the attempt's outcome: read the log until it has it.
  const logged = await waitFor(
    () => app.call(`/v1/events/${completed.event.id}`, { key: c.key }),
    (r) => r.body.deliveries.every((d: any) => d.status !== 'pending'),
  )
  t.equal(logged.body.deliveries.length, 2)
  t.same(
    logged.body.deliveries.map((d: any) => d.status),
    ['delivered', 'delivered'],
  )
  t.same(all.invalid, [])
  t.same(balanceOnly.invalid, [])
})

t.test('a failing endpoint: retried as C8 with the same webhook-id, each attempt in the log', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(100)
  const hook = await webhookReceiver(t, app.contract, (n) => (n < 3 ? 500 : 200))
  const a = await endpoint(app, c.key, hook.url)
  const ping = await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })
  const event = await waitFor(
    () => app.call(`/v1/events/${ping.body.eventId}`, { key: c.key }),
    (r) => r.body.deliveries[0].status !== 'pending',
  )
  t.match(event.body.deliveries, [
    {
      endpointId: a.id,
      status: 'delivered',
      attempts: 3,
      lastStatusCode: 200,
      attemptLog: [{ statusCode: 500 }, { statusCode: 500 }, { statusCode: 200 }],
    },
  ])
  t.same(new Set(hook.hits.map((h) => h.headers['webhook-id'])), new Set([ping.body.eventId]), 'the same webhook-id on every attempt')
})

t.test('a delivery job queued without its event’s time (before events were kept in day partitions) still delivers', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(100)
  const hook = await webhookReceiver(t, app.contract)
  const a = await endpoint(app, c.key, hook.url)
  const ping = await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  const { db } = app.services
  const [row] = await db.sql<{ id: string }>(
    `insert into event_deliveries (event_id, event_created_at, endpoint_id, url, status, attempts, created_at, updated_at)
     select event_id, event_created_at, endpoint_id, url, 'pending', 0, now(), now() from event_deliveries where event_id = ?
     returning id::text`,
    [ping.body.eventId],
  )
  await db.sql(`select graphile_worker.add_job(?, json_build_object('deliveryId', ?::bigint, 'attempt', 1))`, [DELIVER_EVENT_TASK, row!.id])
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 2,
  )
  t.same(
    hook.hits.map((h) => h.headers['webhook-id']),
    [ping.body.eventId, ping.body.eventId],
    'the old job found its delivery and sent the event',
  )
  const event = await waitFor(
    () => app.call(`/v1/events/${ping.body.eventId}`, { key: c.key }),
    (r) => r.body.deliveries.every((d: any) => d.status !== 'pending'),
  )
  t.same(
    event.body.deliveries.map((d: any) => d.status),
    ['delivered', 'delivered'],
  )
})

t.test('no endpoint: the event is logged with a skipped delivery that says why', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(100)
  await finishedJob(app, c.key, 'hi')
  const list = await app.call('/v1/events?type=job.completed', { key: c.key })
  t.equal(list.body.events.length, 1)
  const one = await app.call(`/v1/events/${list.body.events[0].id}`, { key: c.key })
  t.match(one.body.deliveries, [{ endpointId: null, status: 'skipped', reason: /No enabled webhook endpoint .* job\.completed/ }])
})

t.test('test-mode work makes livemode: false events, which live keys never see (and test keys see alone)', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, config: fast })
  const c = await app.customer(100)
  const hook = await webhookReceiver(t, app.contract)
  await endpoint(app, c.key, hook.url)
  const testKey = await createKey(app.services.db, c.accountId, { mode: 'test' }, app.services.secrets)
  await finishedJob(app, testKey.key, 'hi')
  await finishedJob(app, c.key, 'hi')
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 2,
  )
  t.same(hook.hits.map((h) => h.event.livemode).sort(), [false, true], 'the endpoint receives both, each saying its mode')
  const test = hook.hits.find((h) => !h.event.livemode)!
  const live = await app.call('/v1/events', { key: c.key })
  t.same(
    live.body.events.map((e: any) => e.livemode),
    [true],
    'a live key lists live events only',
  )
  t.equal((await app.call(`/v1/events/${test.event.id}`, { key: c.key })).status, 404, 'nor finds a test event by id')
  const testList = await app.call('/v1/events', { key: testKey.key })
  t.same(
    testList.body.events.map((e: any) => e.id),
    [test.event.id],
    'a test key sees test events only',
  )
  t.same(hook.invalid, [])
})

t.test('the log pages newest first with a cursor; maintenance removes events older than 30 days', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], config: fast, resolver: publicResolver })
  const c = await app.customer(100)
  const a = await endpoint(app, c.key, 'https://hooks.example.com/a')
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await app.call(`/v1/webhook-endpoints/${a.id}/test`, { method: 'POST', key: c.key })).body.eventId)
  const first = await app.call('/v1/events?limit=3', { key: c.key })
  const second = await app.call(`/v1/events?limit=3&cursor=${first.body.nextCursor}`, { key: c.key })
  t.same(
    [...first.body.events, ...second.body.events].map((e: any) => e.id),
    ids.reverse(),
  )
  t.notOk(second.body.nextCursor)
  t.equal((await app.call('/v1/events?limit=0', { key: c.key })).status, 400)
  // Back-dated with their deliveries (which carry their event's time): in the partition of the rows from before
  // partitioning, whose old rows maintenance deletes.
  await app.services.db.sql(`update events set created_at = now() - interval '31 days' where id = any(?)`, [ids.slice(0, 2)])
  await app.services.db.sql(`update event_deliveries set event_created_at = now() - interval '31 days' where event_id = any(?)`, [
    ids.slice(0, 2),
  ])
  const report = await runMaintenance(app.services)
  t.equal(report.records['events']!.rowsDeleted, 2)
  t.equal(report.records['event_deliveries']!.rowsDeleted, 2, 'their deliveries with them')
  t.equal((await app.call('/v1/events', { key: c.key })).body.events.length, 3)
})
