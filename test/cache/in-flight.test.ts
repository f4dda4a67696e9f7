// In-flight dedupe across API instances (C20): identical calls arriving while the first runs wait for it and are
// answered from its result, through PostgreSQL (two apps on one database, and an API in its own process that is
// killed mid-call). Money is exact: the leader pays the full price, each follower the hit price, nobody twice.
import t from 'tap'
import { checkManifest } from '../../core/run/registry.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { releaseExpiredHolds } from '../../core/wallet/wallet.ts'
import { fakeServerProvider, startTestApp, type Reply } from '../helpers/app.ts'
import { createTestDatabase } from '../../devkit/database.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import { spawnApi } from '../helpers/spawn-api.ts'

t.setTimeout(180_000)
const PRICE = 10
const HIT_PRICE = 2 // 15 % of 10, rounded up
const env = { RESULT_CACHE_PRICE_PERCENT: '15' }

/** While `held` is set, each model request waits for it; otherwise the fake answers after 300 ms. */
let held: Promise<void> | null = null
/** The next this-many answers are a provider's 400 (after their wait). */
let failing = 0
const fake = await startFakeOpenAI({
  text: async () => {
    await (held ?? new Promise((r) => setTimeout(r, 300)))
    if (failing > 0 && failing--) return { $status: 400, $body: { error: { message: 'refused', type: 'invalid_request_error' } } }
    return undefined // the seeded schema-valid answer
  },
})
t.teardown(() => fake.close())
const modelRequests = () => fake.requests.filter((r) => r.path === '/v1/responses').length
const database = await createTestDatabase()
t.teardown(() => database.drop())
const capabilities = [checkManifest({ ...parse }, 'parse', 'capabilities/parse')]
const instance = () =>
  startTestApp(t, {
    resultCache: true,
    databaseUrl: database.url,
    env,
    provider: fakeServerProvider(fake.baseURL),
    capabilities,
  })
const [a, b] = [await instance(), await instance()]

const invoice = (n: number) => ({ text: `Contoso Ltd\nInvoice C-${n}\nDesk 120.00\nTotal due: 120.00 EUR`, docType: 'invoice' })
const resultPart = (r: Reply) => r.text.slice(0, r.text.indexOf('"usage":'))

t.test('10 identical calls at once across 2 instances: one model request, 10 identical answers, money exact', async (t) => {
  const c = await a.customer(1000)
  const before = modelRequests()
  const replies = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).call('/v1/parse', { key: c.key, body: invoice(1) })),
  )
  for (const r of replies) t.equal(r.status, 200, r.text)
  t.equal(modelRequests() - before, 1, 'one model request')
  t.equal(new Set(replies.map(resultPart)).size, 1, '10 identical answers')
  const outcomes = replies.map((r) => r.headers.get('service-cache')).sort()
  t.same(outcomes, ['hit', 'hit', 'hit', 'hit', 'hit', 'hit', 'hit', 'hit', 'hit', 'miss'])
  const charged = replies.map((r) => r.body.usage.credits as number).sort((x, y) => x - y)
  t.same(charged, [...Array(9).fill(HIT_PRICE), PRICE], 'the leader pays the price, each follower the hit price')
  for (const r of replies) t.equal(r.body.usage.cached === true, r.headers.get('service-cache') === 'hit')
  await a.expectLedger(t, c.accountId, 1000 - PRICE - 9 * HIT_PRICE)
})

t.test('a leader that fails releases its followers: each runs on its own', async (t) => {
  const c = await a.customer(1000)
  let release!: () => void
  held = new Promise<void>((r) => (release = r))
  failing = 1
  const before = modelRequests()
  const leader = a.call('/v1/parse', { key: c.key, body: invoice(2) })
  await until(() => modelRequests() > before)
  const followers = [b, a, b].map((app) => app.call('/v1/parse', { key: c.key, body: invoice(2) }))
  await new Promise((r) => setTimeout(r, 300))
  t.equal(modelRequests() - before, 1, 'the followers wait for the leader')
  held = null
  release()
  const first = await leader
  t.not(first.status, 200, `the leader failed: ${first.status}`)
  t.equal(first.headers.get('service-credits-charged'), '0')
  const replies = await Promise.all(followers)
  for (const r of replies) {
    t.equal(r.status, 200, r.text)
    t.equal(r.body.usage.credits, r.headers.get('service-cache') === 'hit' ? HIT_PRICE : PRICE)
  }
  t.equal(modelRequests() - before, 4, 'each follower ran on its own')
  await a.expectLedger(t, c.accountId, 1000 - replies.reduce((n, r) => n + (r.body.usage.credits as number), 0))
})

t.test('a follower whose client leaves while it waits is free and holds nothing', async (t) => {
  const c = await a.customer(1000)
  let release!: () => void
  held = new Promise<void>((r) => (release = r))
  const before = modelRequests()
  const leader = a.call('/v1/parse', { key: c.key, body: invoice(4) })
  await until(() => modelRequests() > before)
  const leaving = new AbortController()
  const follower = fetch(`${b.url}/v1/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(invoice(4)),
    signal: leaving.signal,
  }).catch((e: unknown) => e as Error)
  await new Promise((r) => setTimeout(r, 300))
  leaving.abort()
  t.ok((await follower) instanceof Error, 'the client left')
  held = null
  release()
  t.equal((await leader).status, 200)
  t.equal(modelRequests() - before, 1, 'the follower made no model request')
  await b.services.requestLog.flush()
  await a.expectLedger(t, c.accountId, 1000 - PRICE)
})

t.test('the leader’s process killed mid-call: each follower is answered or refused free, none charged twice', async (t) => {
  const c = await a.customer(1000)
  const doomed = await spawnApi(t, database.url, { capabilities: ['parse'], fakeOpenAIUrl: fake.baseURL, env })
  let release!: () => void
  held = new Promise<void>((r) => (release = r))
  const before = modelRequests()
  const leader = fetch(`${doomed.url}/v1/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(invoice(3)),
  }).catch((e: unknown) => e as Error)
  await until(() => modelRequests() > before)
  const followers = [a, b, a, b].map((app) => app.call('/v1/parse', { key: c.key, body: invoice(3) }))
  await new Promise((r) => setTimeout(r, 500))
  t.equal(modelRequests() - before, 1, 'the followers wait for the leader')
  doomed.child.kill('SIGKILL')
  t.ok((await leader) instanceof Error, 'the leader’s client lost its connection')
  // Its process's lock went with its connection: the followers' next poll finds the leader gone and they run alone.
  await until(() => modelRequests() - before > 1)
  held = null
  release()
  const replies = await Promise.all(followers)
  let charged = 0
  for (const r of replies) {
    if (r.status === 200) {
      t.equal(r.body.usage.credits, r.headers.get('service-cache') === 'hit' ? HIT_PRICE : PRICE, r.text)
      charged += r.body.usage.credits as number
    } else t.equal(r.headers.get('service-credits-charged'), '0', `refused free: ${r.status}`)
  }
  // The dead leader's hold expires like any stranded sync hold (maintenance releases it).
  await releaseExpiredHolds(a.services.db, new Date(Date.now() + 3600_000))
  await a.expectLedger(t, c.accountId, 1000 - charged)
  const events = await a.services.db.sql(`select request_id, count(*) as n from usage_events where account_id = ? group by 1`, [
    c.accountId,
  ])
  t.equal(events.length, replies.filter((r) => r.status === 200).length, 'one charge per answered call, none for the dead leader')
  t.ok(
    events.every((e) => Number(e.n) === 1),
    'nobody charged twice',
  )
})

t.test('a call whose key is in flight under a leader whose process is gone does not wait for it', async (t) => {
  const c = await a.customer(1000)
  let release!: () => void
  held = new Promise<void>((r) => (release = r))
  const before = modelRequests()
  const first = a.call('/v1/parse', { key: c.key, body: invoice(5) })
  await until(() => modelRequests() > before)
  // As when the leader's process dies: the leader id its row names is no live session's lock.
  const marked = await a.services.db.sql(`update result_cache set leader = -1 where account_id = ? and result is null returning 1`, [
    c.accountId,
  ])
  t.equal(marked.length, 1, 'the leader marked its key in flight')
  const second = b.call('/v1/parse', { key: c.key, body: invoice(5) })
  await until(() => modelRequests() - before === 2) // it called the model while the first call still waits for it
  held = null
  release()
  for (const r of [await first, await second]) {
    t.equal(r.status, 200, r.text)
    t.equal(r.headers.get('service-cache'), 'miss')
    t.equal(r.body.usage.credits, PRICE)
  }
  await a.expectLedger(t, c.accountId, 1000 - 2 * PRICE)
  const [row] = await a.services.db.sql(`select result is not null as stored, hold_id, leader from result_cache where account_id = ?`, [
    c.accountId,
  ])
  t.same(row, { stored: true, hold_id: null, leader: null }, 'the result is kept, the flight ended')
})

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25))
  if (!ok()) throw new Error('timed out')
}
