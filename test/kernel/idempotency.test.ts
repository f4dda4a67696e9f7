// C5: Idempotency-Key replay, conflict and in-flight locking, against real PostgreSQL.
import t from 'tap'
import { ApiError } from '../../core/errors.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
let modelDelay = 0
let calls = 0
let failWith: ApiError | null = null
const slow = testCapability({
  name: 'slow',
  price: 4,
  ratePerMinute: 1000,
  handler: async (input: any) => {
    calls++
    await sleep(modelDelay)
    if (failWith) throw failWith
    return { echo: input.text }
  },
})
const other = testCapability({ name: 'other', price: 4, ratePerMinute: 1000 })
const tight = testCapability({ name: 'tight', price: 1, ratePerMinute: 2 })
const asyncCap = testCapability({ name: 'asyncdoc', price: 3, async: true, ratePerMinute: 1000 })
let clock = Date.now()
const app = await startTestApp(t, { capabilities: [slow, other, tight, asyncCap], now: () => new Date(clock), worker: false })

const idem = (key: string) => ({ 'idempotency-key': key })

t.test('50 concurrent identical requests with one key and a slow model: exactly one charge', async (t) => {
  modelDelay = 300
  calls = 0
  const c = await app.customer(100)
  const results = await Promise.all(
    Array.from({ length: 50 }, () => app.call('/v1/slow', { body: { text: 'once' }, key: c.key, headers: idem('k-concurrent') })),
  )
  modelDelay = 0
  t.equal(calls, 1, 'the capability ran once')
  const fresh = results.filter((r) => r.status === 200 && !r.headers.get('idempotent-replayed'))
  t.equal(fresh.length, 1, 'one fresh answer')
  for (const r of results) {
    if (r.status === 200) t.equal(r.text, fresh[0]!.text, 'a replay is byte-identical')
    else {
      t.equal(r.status, 409)
      t.equal(r.body.error.code, 'idempotency_key_in_use')
      t.equal(r.headers.get('retry-after'), '1')
    }
  }
  const after = await app.call('/v1/slow', { body: { text: 'once' }, key: c.key, headers: idem('k-concurrent') })
  t.equal(after.status, 200)
  t.equal(after.headers.get('idempotent-replayed'), 'true')
  t.equal(after.text, fresh[0]!.text, 'same usage, same bytes')
  const l = await app.ledger(c.accountId)
  t.same(l, { balance: 96, reserved: 0, ledgerSum: 96 }, 'charged exactly once')
})

t.test('the fingerprint ignores key order and whitespace, not content or endpoint', async (t) => {
  const c = await app.customer(100)
  const first = await app.call('/v1/slow', { raw: '{"text":"a b"}', key: c.key, headers: idem('k-fp') })
  const reordered = await app.call('/v1/slow', { raw: '  {\n "text" :  "a b" \n}', key: c.key, headers: idem('k-fp') })
  t.equal(reordered.status, 200)
  t.equal(reordered.headers.get('idempotent-replayed'), 'true')
  t.equal(reordered.text, first.text)
  const different = await app.call('/v1/slow', { body: { text: 'a  b' }, key: c.key, headers: idem('k-fp') })
  t.equal(different.status, 409)
  t.equal(different.body.error.code, 'idempotency_key_reused')
  const otherEndpoint = await app.call('/v1/other', { raw: '{"text":"a b"}', key: c.key, headers: idem('k-fp') })
  t.equal(otherEndpoint.body.error.code, 'idempotency_key_reused')
  t.equal((await app.ledger(c.accountId)).balance, 96)
})

t.test('keys are scoped to the account, shared by its keys', async (t) => {
  const a = await app.customer(100)
  const b = await app.customer(100)
  const ra = await app.call('/v1/slow', { body: { text: 'x' }, key: a.key, headers: idem('k-shared') })
  const rb = await app.call('/v1/slow', { body: { text: 'x' }, key: b.key, headers: idem('k-shared') })
  t.equal(rb.status, 200)
  t.notOk(rb.headers.get('idempotent-replayed'), 'another account does not see the record')
  t.equal(ra.status, 200)
  t.equal((await app.ledger(b.accountId)).balance, 96, 'and its call is charged to it')
  const { createKey } = await import('../../core/accounts/keys.ts')
  const second = await createKey(app.services.db, a.accountId, {})
  const rs = await app.call('/v1/slow', { body: { text: 'x' }, key: second.key, headers: idem('k-shared') })
  t.equal(rs.headers.get('idempotent-replayed'), 'true', 'a second key of the same account replays')
})

t.test('failures leave no record: a 402, then a funded retry with the same key succeeds', async (t) => {
  const c = await app.customer(0)
  const refused = await app.call('/v1/slow', { body: { text: 'pay' }, key: c.key, headers: idem('k-402') })
  t.equal(refused.status, 402)
  await app.topUp(c.accountId, 10)
  const retried = await app.call('/v1/slow', { body: { text: 'pay' }, key: c.key, headers: idem('k-402') })
  t.equal(retried.status, 200)
  t.notOk(retried.headers.get('idempotent-replayed'))
  failWith = new ApiError('inference_failed', 'down')
  const failed = await app.call('/v1/slow', { body: { text: 'flaky' }, key: c.key, headers: idem('k-502') })
  failWith = null
  t.equal(failed.status, 502)
  const again = await app.call('/v1/slow', { body: { text: 'flaky' }, key: c.key, headers: idem('k-502') })
  t.equal(again.status, 200, 'the same key runs again after a failure')
  t.equal((await app.ledger(c.accountId)).balance, 2)
})

t.test('replays are free, work with a zero balance, and still count against the rate limit', async (t) => {
  const c = await app.customer(1)
  const first = await app.call('/v1/tight', { body: { text: 'r' }, key: c.key, headers: idem('k-rl') })
  t.equal(first.status, 200)
  t.equal((await app.ledger(c.accountId)).balance, 0)
  const replay = await app.call('/v1/tight', { body: { text: 'r' }, key: c.key, headers: idem('k-rl') })
  t.equal(replay.status, 200, 'replayed with zero balance')
  t.equal(replay.text, first.text)
  const third = await app.call('/v1/tight', { body: { text: 'r' }, key: c.key, headers: idem('k-rl') })
  t.equal(third.status, 429, 'the replay counted against the limit of 2')
})

t.test('an async call replays the same jobId and enqueues one job (C5, C7)', async (t) => {
  const c = await app.customer(10)
  const results = await Promise.all(
    Array.from({ length: 10 }, () =>
      app.call('/v1/asyncdoc', { body: { text: 'doc', async: true }, key: c.key, headers: idem('k-async') }),
    ),
  )
  const accepted = results.filter((r) => r.status === 202)
  t.ok(accepted.length >= 1)
  t.equal(new Set(accepted.map((r) => r.body.jobId)).size, 1, 'one jobId')
  t.ok(results.every((r) => r.status === 202 || r.body?.error?.code === 'idempotency_key_in_use'))
  t.equal(accepted.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, accepted.length - 1)
  const [jobs] = await app.services.db.sql(`select count(*)::int as n from jobs where account_id = ?`, [c.accountId])
  t.equal(jobs!.n, 1, 'one job row')
  const [queued] = await app.services.db.sql(
    `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
      where k.identifier = 'run_capability' and j.payload->>'jobId' = ?`,
    [accepted[0]!.body.jobId],
  )
  t.equal(queued!.n, 1, 'one graphile-worker job')
  t.equal((await app.ledger(c.accountId)).reserved, 3, 'one hold')
})

t.test('the 24 h window, and maintenance removes old records', async (t) => {
  const c = await app.customer(100)
  const start = clock
  const first = await app.call('/v1/slow', { body: { text: 'day' }, key: c.key, headers: idem('k-window') })
  clock = start + 23 * 3600_000
  t.equal(
    (await app.call('/v1/slow', { body: { text: 'day' }, key: c.key, headers: idem('k-window') })).headers.get('idempotent-replayed'),
    'true',
  )
  clock = start + 24 * 3600_000 + 1000
  const fresh = await app.call('/v1/slow', { body: { text: 'day' }, key: c.key, headers: idem('k-window') })
  t.equal(fresh.status, 200)
  t.notOk(fresh.headers.get('idempotent-replayed'), 'after 24 h the key is absent: the call runs and is charged again')
  t.not(fresh.text, first.text)
  // A different body is allowed too once the window has passed.
  await app.call('/v1/slow', { body: { text: 'old' }, key: c.key, headers: idem('k-old') })
  clock += 25 * 3600_000
  const report = await runMaintenance(app.services)
  t.ok(report.idempotencyRecordsRemoved >= 2)
  const rows = await app.services.db.sql(`select key from idempotency_records where account_id = ?`, [c.accountId])
  t.same(rows, [], 'records older than 24 h are removed')
  clock = Date.now()
})

t.test('a lock left by a killed request expires within 2 minutes', async (t) => {
  const c = await app.customer(100)
  const { fingerprint } = await import('../../core/idempotency/idempotency.ts')
  // The state a process leaves when it dies after claiming the key: a running record, nothing else.
  const now = Date.now()
  clock = now
  await app.services.db.sql(
    `insert into idempotency_records (account_id, key, fingerprint, state, locked_until, created_at) values (?, 'k-dead', ?, 'running', ?, ?)`,
    [c.accountId, fingerprint('POST', '/v1/slow', { text: 'dead' }), new Date(now + 120_000), new Date(now)],
  )
  const blocked = await app.call('/v1/slow', { body: { text: 'dead' }, key: c.key, headers: idem('k-dead') })
  t.equal(blocked.body.error.code, 'idempotency_key_in_use')
  clock = now + 121_000
  const taken = await app.call('/v1/slow', { body: { text: 'dead' }, key: c.key, headers: idem('k-dead') })
  t.equal(taken.status, 200, 'after the lock expires the request runs')
  t.equal((await app.ledger(c.accountId)).balance, 96)
  clock = Date.now()
})
