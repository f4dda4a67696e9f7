// C17 alerts: balance.low / balance.recovered exactly once per crossing under concurrent charges, decided in the
// charge's own transaction (the outbox), and key.budget_threshold once per key, percent and UTC month. Real
// PostgreSQL, a real receiver on loopback; every body it receives is checked against the published webhook schemas.
import t from 'tap'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { twoCreditCapability } from '../helpers/job-capabilities.ts'
import { verifies, waitFor, webhookReceiver } from '../helpers/webhook-receiver.ts'

const fast = { callbacksAllowPrivate: true, webhookRetryDelays: [0.2, 0.2, 0.2, 0.2, 0.2], webhookTimeoutMs: 1000 }

async function endpoint(app: TestApp, key: string, url: string, events?: string[]) {
  const res = await app.call('/v1/webhook-endpoints', { key, body: { url, ...(events ? { events } : {}) } })
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${res.text}`)
  return res.body as { id: string; secret: string }
}

const charge = (app: TestApp, key: string) => app.call('/v1/charge2', { key, body: { text: 'x' } })
const byType = (hits: { event: { type: string; data: any } }[], type: string) =>
  hits
    .filter((h) => h.event.type === type)
    .map((h) => h.event.data.threshold as number)
    .sort((a, b) => b - a)

t.test(
  'thresholds [50, 20], 100 credits, 30 concurrent 2-credit calls: one balance.low each; a purchase: one recovered each; again: low again',
  async (t) => {
    const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
    const c = await app.customer(100)
    const hook = await webhookReceiver(t, app.contract)
    const { secret } = await endpoint(app, c.key, hook.url)
    const put = await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [20, 50] } })
    t.equal(put.status, 200)
    t.same(put.body, { balanceThresholds: [50, 20], keyBudgetPercents: [], email: false })

    // 30 × 2 credits: 100 → 40, below 50 only; then 15 more: 40 → 10, below 20.
    const answers = await Promise.all(Array.from({ length: 30 }, () => charge(app, c.key)))
    t.same([...new Set(answers.map((a) => a.status))], [200])
    await app.expectLedger(t, c.accountId, 40)
    await waitFor(
      () => hook.hits,
      (h) => h.length >= 1,
    )
    await new Promise((r) => setTimeout(r, 500)) // a duplicate would arrive in this time
    t.same(byType(hook.hits, 'balance.low'), [50], 'exactly one balance.low for 50, none for 20 (40 left)')
    const more = await Promise.all(Array.from({ length: 15 }, () => charge(app, c.key)))
    t.same([...new Set(more.map((a) => a.status))], [200])
    await waitFor(
      () => hook.hits,
      (h) => h.length >= 2,
    )
    await new Promise((r) => setTimeout(r, 500))
    t.same(byType(hook.hits, 'balance.low'), [50, 20], 'exactly one balance.low per threshold')
    t.equal(hook.hits.length, 2)
    for (const hit of hook.hits) {
      t.same(verifies(secret, hit), hit.event, 'signed and verifiable with the endpoint secret')
      t.equal(hit.headers['webhook-id'], hit.event.id, 'webhook-id is the event id')
      t.equal(hit.event.livemode, true)
      t.ok(hit.event.data.available < hit.event.data.threshold, 'available is below the threshold at the crossing')
    }

    await app.topUp(c.accountId, 60) // 70 available: back above both
    await waitFor(
      () => hook.hits,
      (h) => h.length >= 4,
    )
    await new Promise((r) => setTimeout(r, 300))
    t.same(byType(hook.hits, 'balance.recovered'), [50, 20], 'one balance.recovered per threshold')
    t.same(
      hook.hits.filter((h) => h.event.type === 'balance.recovered').map((h) => h.event.data.available),
      [70, 70],
    )

    // 70 → 48: below 50 again (not 20).
    for (let i = 0; i < 11; i++) t.equal((await charge(app, c.key)).status, 200)
    await waitFor(
      () => hook.hits,
      (h) => h.length >= 5,
    )
    await new Promise((r) => setTimeout(r, 300))
    t.same(byType(hook.hits.slice(4), 'balance.low'), [50], 'crossing again fires balance.low again, for 50 only')
    t.equal(hook.hits.length, 5)
    t.same(hook.invalid, [], 'every body matches the published webhook schema of its type')

    const log = await app.call('/v1/events', { key: c.key })
    t.same(
      log.body.events.map((e: any) => e.type),
      ['balance.low', 'balance.recovered', 'balance.recovered', 'balance.low', 'balance.low'],
      'the event log, newest first',
    )
    const one = await app.call(`/v1/events/${hook.hits[0]!.event.id}`, { key: c.key })
    t.match(one.body.deliveries, [{ status: 'delivered', attempts: 1, lastStatusCode: 200, attemptLog: [{ attempt: 1, statusCode: 200 }] }])
  },
)

t.test('a balance teetering around a threshold (holds released after failed calls) never fires a second balance.low', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
  const c = await app.customer(51)
  const hook = await webhookReceiver(t, app.contract)
  await endpoint(app, c.key, hook.url, ['balance.*'])
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [50] } })
  const db = app.services.db
  // A hold taken and released, five times: 51 → 49 → 51 → … (the way a failed call moves the available credits).
  for (let i = 0; i < 5; i++) {
    await db.sql(`update accounts set reserved = reserved + 2 where id = ?`, [c.accountId])
    await db.sql(`update accounts set reserved = reserved - 2 where id = ?`, [c.accountId])
  }
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  await new Promise((r) => setTimeout(r, 500))
  t.same(
    hook.hits.map((h) => h.event.type),
    ['balance.low'],
    'one balance.low, no recovered without money coming in',
  )
})

t.test('thresholds set when the balance is already below one: no event then, balance.recovered after a purchase', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
  const c = await app.customer(10)
  const hook = await webhookReceiver(t, app.contract)
  await endpoint(app, c.key, hook.url)
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [50, 5] } })
  t.equal((await charge(app, c.key)).status, 200) // 8: above 5, already below 50
  await app.topUp(c.accountId, 100)
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  await new Promise((r) => setTimeout(r, 300))
  t.same(
    hook.hits.map((h) => [h.event.type, h.event.data.threshold]),
    [['balance.recovered', 50]],
  )
})

t.test('a key with a monthly cap crossing 50 % and 100 %: one key.budget_threshold each, none again that month', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
  const c = await app.customer(1000, { plan: 'team', monthlySpendCap: 20 })
  const hook = await webhookReceiver(t, app.contract)
  await endpoint(app, c.key, hook.url, ['key.*'])
  t.equal((await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { keyBudgetPercents: [100, 50] } })).status, 200)
  const answers = await Promise.all(Array.from({ length: 14 }, () => charge(app, c.key)))
  t.equal(answers.filter((a) => a.status === 200).length, 10, 'the cap lets 10 calls of 2 through')
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 2,
  )
  // A higher cap: the spend (20) is 50 % of 40 again, then 100 % again: nothing more this month.
  await app.services.db.sql(`update api_keys set monthly_spend_cap = 40 where id = ?`, [c.keyId])
  for (let i = 0; i < 10; i++) t.equal((await charge(app, c.key)).status, 200)
  await new Promise((r) => setTimeout(r, 600))
  // Deliveries run in parallel, so they may arrive in either order (the docs say so): order by percent.
  const [half, full] = [...hook.hits].sort((a, b) => a.event.data.percent - b.event.data.percent)
  t.same(
    [half, full].map((h) => h!.event.data.percent),
    [50, 100],
    'one event per percent this month',
  )
  t.equal(hook.hits.length, 2)
  t.match(half!.event, { type: 'key.budget_threshold', livemode: true, data: { keyId: c.keyId, percent: 50, cap: 20 } })
  t.ok(half!.event.data.monthSpend >= 10)
  t.match(full!.event.data, { percent: 100, monthSpend: 20, cap: 20 })
  t.same(hook.invalid, [])
})

t.test('alerts: validation, audit, and an account without thresholds writes no alert events', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], config: fast })
  const c = await app.customer(100)
  for (const body of [
    { balanceThresholds: [-1] },
    { keyBudgetPercents: [0] },
    { balanceThresholds: Array.from({ length: 11 }, (_, i) => i) },
    {},
  ])
    t.equal((await app.call('/v1/alerts', { method: 'PUT', key: c.key, body })).body.error.code, 'invalid_request', JSON.stringify(body))
  t.same((await app.call('/v1/alerts', { key: c.key })).body, { balanceThresholds: [], keyBudgetPercents: [], email: false })
  for (let i = 0; i < 30; i++) await charge(app, c.key)
  const [events] = await app.services.db.sql(`select count(*)::int as n from events where account_id = ?`, [c.accountId])
  t.equal(events!.n, 0, 'no thresholds: no event')
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [10], email: true } })
  const audit = await app.services.db.sql(`select action, details from audit_entries where account_id = ? and action like 'alerts.%'`, [
    c.accountId,
  ])
  t.match(audit, [
    { action: 'alerts.updated', details: { before: { balanceThresholds: [] }, after: { balanceThresholds: [10], email: true } } },
  ])
})

t.test('email: true mails each balance alert to the owners and billing members, once', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
  const mails: { to: string; subject: string; text: string }[] = []
  app.services.mailer = { send: async (to, subject, text) => void mails.push({ to, subject, text }) }
  const c = await app.customer(20)
  const db = app.services.db
  for (const [email, role] of [
    ['owner@alerts.test', 'owner'],
    ['money@alerts.test', 'billing'],
    ['dev@alerts.test', 'developer'],
  ])
    await db.sql(`insert into members (id, account_id, email, role) values (gen_random_uuid(), ?, ?, ?)`, [c.accountId, email, role])
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [15], email: true } })
  for (let i = 0; i < 3; i++) t.equal((await charge(app, c.key)).status, 200) // 20 → 14
  const [{ email: creator }] = (await db.sql(`select email from accounts where id = ?`, [c.accountId])) as [{ email: string }]
  await waitFor(
    () => mails,
    (m) => m.length >= 3,
  )
  await new Promise((r) => setTimeout(r, 500))
  t.same(
    mails.map((m) => m.to).sort(),
    [creator, 'money@alerts.test', 'owner@alerts.test'].sort(),
    'owners and billing members, not developers',
  )
  t.match(mails[0], { subject: 'Credits below 15', text: /14 left/ })
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { email: false } })
  await app.topUp(c.accountId, 10)
  const recovered = await waitFor(
    () => db.sql(`select 1 from events where account_id = ? and type = 'balance.recovered'`, [c.accountId]),
    (r) => r.length > 0,
  )
  t.equal(recovered.length, 1)
  await new Promise((r) => setTimeout(r, 500))
  t.equal(mails.length, 3, 'email off: the event, no mail')
})

t.test('ten concurrent purchases back across a threshold: one balance.recovered', async (t) => {
  const app = await startTestApp(t, { capabilities: [twoCreditCapability], worker: true, config: fast })
  const c = await app.customer(52)
  const hook = await webhookReceiver(t, app.contract)
  await endpoint(app, c.key, hook.url, ['balance.*'])
  await app.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [50] } })
  t.equal((await charge(app, c.key)).status, 200) // 50: not below
  t.equal((await charge(app, c.key)).status, 200) // 48: below
  await Promise.all(Array.from({ length: 10 }, () => app.topUp(c.accountId, 1))) // 49 … 58
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 2,
  )
  await new Promise((r) => setTimeout(r, 500))
  t.same(
    [...hook.hits]
      .sort((a, b) => a.event.createdAt.localeCompare(b.event.createdAt))
      .map((h) => [h.event.type, h.event.data.threshold, h.event.data.available]),
    [
      ['balance.low', 50, 48],
      ['balance.recovered', 50, 50],
    ],
    'recovered once, by the purchase that reached 50',
  )
  await app.expectLedger(t, c.accountId, 58)
})
