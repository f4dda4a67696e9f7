// Issue 33: async calls accepted concurrently with Idempotency-Keys on one account deadlocked in PostgreSQL
// (40P01, 73 of 80 answered 500). Concurrent acceptance with keys, mixed with sync calls, replays, job endings
// and maintenance, against real PostgreSQL: all accepted, each charged once, no 5xx, and no deadlock or
// serialization failure seen by the database handle (db.contention(), retried or not).
import t from 'tap'
import { runMaintenance } from '../../core/maintenance.ts'
import { startTestApp, testCapability, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// A second async endpoint (the parse and invoice) and a sync one, all of one account.
const jobInvoice = testCapability({ name: 'jobinvoice', price: 3, async: true, ratePerMinute: 10_000 })
const syncEcho = testCapability({ name: 'syncecho', price: 2, ratePerMinute: 10_000 })
const capabilities = [jobCapability, jobInvoice, syncEcho]

/** Runs `calls` with `concurrency` in flight, in order; resolves to their answers. */
async function pooled<T>(calls: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const out: T[] = new Array(calls.length)
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls.length) {
        const i = next++
        out[i] = await calls[i]!()
      }
    }),
  )
  return out
}

async function waitEnded(app: TestApp, accountId: string, ms = 20_000) {
  const end = Date.now() + ms
  for (;;) {
    const [row] = await app.services.db.sql(
      `select count(*)::int as open from jobs where account_id = ? and status in ('queued', 'running')`,
      [accountId],
    )
    if (row!.open === 0 || Date.now() > end) return row!.open as number
    await sleep(50)
  }
}

const statuses = (replies: { status: number }[]) =>
  replies.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {})

for (const concurrency of [8, 32]) {
  t.test(`80 async calls with distinct keys at concurrency ${concurrency}, one account and one key: 80 × 202, charged once`, async (t) => {
    const app = await startTestApp(t, { capabilities, worker: true })
    const c = await app.customer(10_000)
    const before = app.services.db.contention()
    const replies = await pooled(
      Array.from({ length: 80 }, (_, i) => () => {
        const endpoint = i % 2 ? '/v1/jobdoc' : '/v1/jobinvoice' // mixed endpoints
        return app.call(endpoint, { key: c.key, body: { text: `doc ${i}`, async: true }, headers: { 'idempotency-key': `k-${i}` } })
      }),
      concurrency,
    )
    t.same(statuses(replies), { 202: 80 })
    t.equal(await waitEnded(app, c.accountId), 0, 'every job ended')
    t.equal(app.services.db.contention() - before, 0, 'no deadlock or serialization failure in the database')
    await app.expectLedger(t, c.accountId, 10_000 - 40 * 7 - 40 * 3)

    // Replays of the same keys answer the same 202 and charge nothing more.
    const replays = await pooled(
      Array.from({ length: 80 }, (_, i) => () => {
        const endpoint = i % 2 ? '/v1/jobdoc' : '/v1/jobinvoice'
        return app.call(endpoint, { key: c.key, body: { text: `doc ${i}`, async: true }, headers: { 'idempotency-key': `k-${i}` } })
      }),
      concurrency,
    )
    t.same(statuses(replays), { 202: 80 })
    t.ok(
      replays.every((r, i) => r.text === replies[i]!.text && r.headers.get('idempotent-replayed') === 'true'),
      'each replay is its 202',
    )
    await app.expectLedger(t, c.accountId, 10_000 - 40 * 7 - 40 * 3)
  })
}

t.test('acceptance with keys mixed with sync calls, replays, failing and running jobs, several keys, maintenance', async (t) => {
  const app = await startTestApp(t, { capabilities, worker: true })
  const c = await app.customer(10_000)
  // More keys of the same account, as several services of one customer would use.
  const keys = [c.key]
  for (let i = 0; i < 3; i++) {
    const [row] = await app.services.db.sql(`select email from accounts where id = ?`, [c.accountId])
    t.ok(row)
    const { createKey } = await import('../../core/accounts/keys.ts')
    keys.push((await createKey(app.services.db, c.accountId, { name: `k${i}`, monthlySpendCap: null })).key)
  }
  const before = app.services.db.contention()
  let maintaining = true
  const maintenance = (async () => {
    let passes = 0
    while (maintaining) {
      await runMaintenance(app.services)
      passes++
    }
    return passes
  })()
  type Kind = 'ok' | 'fail' | 'sleep' | 'sync' | 'replay'
  const kinds: Kind[] = ['ok', 'fail', 'sleep', 'sync', 'replay']
  const calls = Array.from({ length: 120 }, (_, i) => {
    const kind = kinds[i % kinds.length]!
    const key = keys[i % keys.length]!
    const idem = kind === 'replay' ? `mixed-${i - 1}` : `mixed-${i}` // the sync call just before it, replayed
    const text = kind === 'fail' ? 'fail' : kind === 'sleep' ? 'sleep:150' : `doc ${i}`
    const path = kind === 'sync' || kind === 'replay' ? '/v1/syncecho' : '/v1/jobdoc'
    const body = kind === 'sync' || kind === 'replay' ? { text: `doc ${kind === 'replay' ? i - 1 : i}` } : { text, async: true }
    // The replay must present the same request as the call it repeats: same key, same body.
    const apiKey = kind === 'replay' ? keys[(i - 1) % keys.length]! : key
    return { kind, run: () => app.call(path, { key: apiKey, body, headers: { 'idempotency-key': idem } }) }
  })
  const replies = await pooled(
    calls.map((c) => c.run),
    16,
  )
  maintaining = false
  t.ok((await maintenance) > 0, 'maintenance ran during the load')
  const byKind = (k: Kind) => replies.filter((_, i) => calls[i]!.kind === k)
  t.same(statuses(byKind('ok')), { 202: 24 })
  t.same(statuses(byKind('fail')), { 202: 24 })
  t.same(statuses(byKind('sleep')), { 202: 24 })
  // A sync call and its replay race for their key: one of them runs (200), the other is its recorded 200 or
  // 409 in_use while the first still runs.
  const sync = byKind('sync')
  const replayed = byKind('replay')
  const inUse = (r: { status: number; body: any }) => r.status === 409 && r.body.error.code === 'idempotency_key_in_use'
  t.ok(
    sync.every(
      (r, i) =>
        (r.status === 200 || inUse(r)) && (replayed[i]!.status === 200 || inUse(replayed[i]!)) && !(inUse(r) && inUse(replayed[i]!)),
    ),
    'each sync call ran once: 200, and its replay 200 or 409 in_use',
  )
  t.equal(await waitEnded(app, c.accountId), 0, 'every job ended')
  t.equal(app.services.db.contention() - before, 0, 'no deadlock or serialization failure in the database')
  // 48 jobs succeeded at 7, 24 failed free, 24 sync calls at 2 (each charged once whatever its replays).
  await app.expectLedger(t, c.accountId, 10_000 - 48 * 7 - 24 * 2)
})
