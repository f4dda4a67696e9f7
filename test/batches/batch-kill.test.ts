// C19 under load and crashes: 1,000 items with 50 failing at run time, and worker processes killed with SIGKILL
// three times during a 1,000-item batch. Every item ends exactly once, is charged at most once, and the money
// is exact: charged = the sum of the succeeded items' discounted prices, nothing left reserved.
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { spawnWorker } from '../helpers/spawn-worker.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const PRICE_24H = 6 // jobdoc's 7 credits less 20 %, rounded up

async function ended(app: TestApp, key: string, batchId: string, ms: number) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(250)) {
    const res = await app.call(`/v1/batches/${batchId}`, { key })
    if (res.body.completedAt) return res.body
  }
  throw new Error(`batch ${batchId} did not end within ${ms} ms`)
}

/** The checks both scenarios share: counts, money and results agree with the items' own rows. */
async function checkExact(t: Test, app: TestApp, c: { accountId: string; key: string }, batchId: string, funded: number, texts: string[]) {
  const view = (await app.call(`/v1/batches/${batchId}`, { key: c.key })).body
  const rows = await app.services.db.sql<{ status: string; code: string | null; n: number }>(
    `select status, error->>'code' as code, count(*)::int as n from jobs where batch_id = (select id from batches where account_id = ?) group by 1, 2`,
    [c.accountId],
  )
  const succeeded = rows.filter((r) => r.status === 'succeeded').reduce((n, r) => n + r.n, 0)
  const failed = rows.filter((r) => r.status === 'failed').reduce((n, r) => n + r.n, 0)
  t.equal(succeeded + failed, texts.length, 'every item ended')
  t.same(
    [view.counts.succeeded, view.counts.failed + view.counts.expired + view.counts.cancelled],
    [succeeded, failed],
    'the counts are the items’ endings, each counted once',
  )
  const [charges] = await app.services.db.sql(
    `select count(*)::int as n, coalesce(-sum(amount), 0)::int as credits from ledger where account_id = ? and kind = 'charge'`,
    [c.accountId],
  )
  t.equal(charges!.n, succeeded, 'one charge per succeeded item, none for a failed one')
  t.equal(charges!.credits, succeeded * PRICE_24H, 'charged exactly the succeeded items’ discounted prices')
  t.same(view.credits, { held: 0, charged: succeeded * PRICE_24H })
  await app.expectLedger(t, c.accountId, funded - succeeded * PRICE_24H)
  const results = await app.call(`/v1/batches/${batchId}/results`, { key: c.key })
  const lines = results.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { customId: string; status: string })
  t.same(
    lines.map((l) => l.customId),
    texts.map((_, i) => `doc-${i}`),
    'one line per item, in item order',
  )
  return { view, lines, succeeded }
}

const body = (texts: string[]) => ({
  endpoint: 'jobdoc',
  window: '24h',
  items: texts.map((text, i) => ({ customId: `doc-${i}`, body: { text } })),
})

t.test('1,000 items, 50 failing at run time: 950 succeeded, charged exactly their discounted prices, reserved back to 0', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await app.customer(10_000)
  const texts = Array.from({ length: 1000 }, (_, i) => (i % 20 === 7 ? 'fail' : `page ${i}`))
  const res = await app.call('/v1/batches', { key: c.key, body: body(texts) })
  t.equal(res.status, 202)
  t.same(res.body.credits, { held: 6000 })
  await ended(app, c.key, res.body.batchId, 120_000)
  const { view, lines } = await checkExact(t, app, c, res.body.batchId, 10_000, texts)
  t.equal(view.status, 'completed')
  t.same([view.counts.succeeded, view.counts.failed], [950, 50])
  t.same(
    lines.filter((l) => l.status === 'failed').map((l) => l.customId),
    texts.flatMap((text, i) => (text === 'fail' ? [`doc-${i}`] : [])),
    'the failed lines are the failing items',
  )
})

t.test('workers killed with SIGKILL three times during a 1,000-item batch: every item ends once, charged at most once', async (t) => {
  const liveness = { WORKER_HEARTBEAT_SECONDS: '0.5', WORKER_DEAD_AFTER_SECONDS: '2', JOB_LEASE_SECONDS: '2' }
  const app = await startTestApp(t, { capabilities: [jobCapability], env: liveness })
  const c = await app.customer(10_000)
  const texts = Array.from({ length: 1000 }, (_, i) => (i % 20 === 7 ? 'fail' : 'sleep:300'))
  const res = await app.call('/v1/batches', { key: c.key, body: body(texts) })
  t.equal(res.status, 202)
  const env = { ...liveness, WORKER_CONCURRENCY: '8', BATCH_ACCOUNT_CONCURRENCY: '24' }
  const endedCount = async () =>
    Number(
      (
        await app.services.db.sql(`select count(*)::int as n from jobs where batch_id is not null and status in ('succeeded', 'failed')`)
      )[0]!.n,
    )
  // Two workers at a time; three times, once more items have ended, the older one is killed mid-batch and a
  // replacement started (in the background: a process takes seconds to start on a loaded machine).
  const workers = [spawnWorker(t, app.services.db.url, env), spawnWorker(t, app.services.db.url, env)]
  await Promise.all(workers)
  const atKill: number[] = []
  for (let kill = 1; kill <= 3; kill++) {
    const target = kill * 100
    for (const end = Date.now() + 60_000; (await endedCount()) < target && Date.now() < end;) await sleep(50)
    const doomed = await workers.shift()!
    atKill.push(await endedCount())
    doomed.child.kill('SIGKILL')
    await once(doomed.child, 'exit')
    workers.push(spawnWorker(t, app.services.db.url, env))
  }
  t.ok(atKill[2]! < 1000, `the kills came while items were still waiting (${atKill.join(', ')} of 1,000 ended)`)
  const view = await ended(app, c.key, res.body.batchId, 180_000)
  const { succeeded } = await checkExact(t, app, c, res.body.batchId, 10_000, texts)
  t.ok(succeeded >= 900, `most items succeeded (${succeeded}); the ones running at a kill ended worker_lost, free`)
  t.equal(view.status, 'completed')
})
