// C7: async jobs on graphile-worker — lifecycle, exactly-once charge, failures free, leases, the 24 h
// deadline, restart survival, ownership.
import { once } from 'node:events'
import t, { type Test } from 'tap'
import { batched } from '../../core/jobs/batch.ts'
import { completeJob, failJob } from '../../core/jobs/end.ts'
import { startWorker } from '../../core/worker.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { spawnWorker } from '../helpers/spawn-worker.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function waitFor(app: TestApp, key: string, jobId: string, statuses: string[], ms = 15_000) {
  const end = Date.now() + ms
  for (;;) {
    const res = await app.call(`/v1/jobs/${jobId}`, { key })
    if (statuses.includes(res.body.status) || Date.now() > end) return res
    await sleep(50)
  }
}

const accept = (app: TestApp, key: string, text: string, extra: object = {}) =>
  app.call('/v1/jobdoc', { body: { text, async: true, ...extra }, key })

t.test('lifecycle: 202 → queued → running → succeeded, charged exactly once', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await app.customer(20)
  const res = await accept(app, c.key, 'sleep:300')
  t.equal(res.status, 202)
  t.match(res.body, { jobId: /^[0-9a-f-]{36}$/, status: 'queued', requestId: /^req_/ })
  t.same(Object.keys(res.body).sort(), ['credits', 'jobId', 'livemode', 'requestId', 'status'])
  t.same(res.body.credits, { held: 7 }, 'the 202 says what it holds')
  t.equal(res.body.livemode, true)
  t.equal(res.headers.get('location'), `/v1/jobs/${res.body.jobId}`, 'Location names the job')
  t.equal((await app.ledger(c.accountId)).reserved, 7, 'credits reserved at acceptance, nothing charged')
  t.equal((await app.ledger(c.accountId)).balance, 20)
  const running = await waitFor(app, c.key, res.body.jobId, ['running', 'succeeded'])
  t.equal(running.body.status, 'running')
  t.ok(running.body.startedAt)
  const done = await waitFor(app, c.key, res.body.jobId, ['succeeded', 'failed'])
  t.equal(done.body.status, 'succeeded')
  t.same(
    done.body.result,
    { echo: 'sleep:300', usage: { credits: 7, balanceRemaining: 13, livemode: true } },
    'the body a sync call returns, usage included',
  )
  t.match(done.body, {
    endpoint: '/v1/jobdoc',
    requestId: res.body.requestId,
    livemode: true,
    createdAt: String,
    updatedAt: String,
    finishedAt: String,
  })
  t.same(await app.ledger(c.accountId), { balance: 13, reserved: 0, ledgerSum: 13 })
  const [input] = await app.services.db.sql(`select count(*)::int as n from job_inputs where job_id = ?`, [res.body.jobId])
  t.equal(input!.n, 0, 'stored input removed at the end')
  // Polling is free and not throttled by the capability limit.
  for (let i = 0; i < 5; i++) t.equal((await app.call(`/v1/jobs/${res.body.jobId}`, { key: c.key })).status, 200)
  t.equal((await app.ledger(c.accountId)).balance, 13)

  t.test('a failed job is free and says why', async (t) => {
    const f = await accept(app, c.key, 'fail')
    const failed = await waitFor(app, c.key, f.body.jobId, ['succeeded', 'failed'])
    t.equal(failed.body.status, 'failed')
    // The message in `error`, the stable code in `errorCode` (issue 14 revises C7's object form).
    t.equal(failed.body.error, 'The model provider failed.')
    t.equal(failed.body.errorCode, 'inference_failed')
    t.notOk('result' in failed.body)
    t.same(await app.ledger(c.accountId), { balance: 13, reserved: 0, ledgerSum: 13 })
  })

  t.test('another account, an unknown id and a malformed id are the same 404', async (t) => {
    const other = await app.customer(0)
    for (const [id, key] of [
      [res.body.jobId, other.key],
      ['00000000-0000-4000-8000-000000000000', c.key],
      ['not-a-uuid', c.key],
      ["1' or '1'='1", c.key],
    ]) {
      const r = await app.call(`/v1/jobs/${encodeURIComponent(id)}`, { key })
      t.equal(r.status, 404)
      t.equal(r.body.error.code, 'not_found')
    }
    t.equal((await app.call(`/v1/jobs/${res.body.jobId}`)).status, 401)
  })

  t.test('acceptance refuses like a sync call: 402 with nothing queued', async (t) => {
    const broke = await app.customer(0)
    const r = await accept(app, broke.key, 'x')
    t.equal(r.status, 402)
    const [jobs] = await app.services.db.sql(`select count(*)::int as n from jobs where account_id = ?`, [broke.accountId])
    t.equal(jobs!.n, 0)
  })
})

const workerProcess = async (t: Test, app: TestApp, env: Record<string, string> = {}) =>
  (await spawnWorker(t, app.services.db.url, env)).child

t.test('two workers with many jobs in flight: each job ends once, successes charged once, failures free', async (t) => {
  // Jobs are claimed and ended in groups (core/jobs/batch.ts); two workers (another process and this one) racing
  // over one backlog spread over a few accounts is where a group could double-charge, skip a job or deadlock on
  // account rows. The backlog is parked until both run, then released at once.
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false, config: { callbacksAllowPrivate: true } })
  const customers = await Promise.all([0, 1, 2].map(() => app.customer(7 * 30)))
  const texts = Array.from({ length: 90 }, (_, i) => (i % 5 === 0 ? 'fail' : i % 3 === 0 ? 'sleep:30' : `job ${i}`))
  const accepted = await Promise.all(
    texts.map((text, i) => accept(app, customers[i % 3]!.key, text, { callbackUrl: 'http://127.0.0.1:9/hook' })),
  )
  t.ok(accepted.every((r) => r.status === 202))
  await app.services.db.sql(`update graphile_worker._private_jobs set run_at = now() + interval '1 hour'`)
  await workerProcess(t, app, { WORKER_CONCURRENCY: '16' })
  const worker = await startWorker(app.services, { concurrency: 16 })
  t.teardown(() => worker.stop())
  await app.services.db.sql(`update graphile_worker._private_jobs set run_at = now()`)
  await app.services.db.sql(`select pg_notify('jobs:insert', '')`)
  const ids = accepted.map((r) => r.body.jobId as string)
  for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100)) {
    const [open] = await app.services.db.sql(
      `select count(*)::int as n from jobs where id = any(?::uuid[]) and status in ('queued', 'running')`,
      [ids],
    )
    if (open!.n === 0) break
  }
  const jobs = await app.services.db.sql(`select id, status, request_id, error from jobs where id = any(?::uuid[])`, [ids])
  const succeeded = jobs.filter((j) => j.status === 'succeeded')
  t.equal(succeeded.length, 72, 'every job that should succeed did')
  t.equal(jobs.filter((j) => j.status === 'failed' && j.error.code === 'inference_failed').length, 18, 'every failing job failed')
  const charges = await app.services.db.sql(`select reference from ledger where kind = 'charge' and account_id = any(?::uuid[])`, [
    customers.map((c) => c.accountId),
  ])
  t.same(charges.map((c) => c.reference).sort(), succeeded.map((j) => `jobdoc ${j.request_id}`).sort(), 'one charge per succeeded job')
  for (const c of customers) t.same(await app.ledger(c.accountId), { balance: 7 * 6, reserved: 0, ledgerSum: 7 * 6 })
  const events = await app.services.db.sql(`select job_id, event from webhook_deliveries where job_id = any(?::uuid[])`, [ids])
  t.same(
    events.map((e) => `${e.job_id} ${e.event}`).sort(),
    jobs.map((j) => `${j.id} ${j.status === 'succeeded' ? 'job.completed' : 'job.failed'}`).sort(),
    'one terminal event per job, in its final transaction',
  )
  const [inputs] = await app.services.db.sql(`select count(*)::int as n from job_inputs where job_id = any(?::uuid[])`, [ids])
  t.equal(inputs!.n, 0, 'every stored input removed')
})

t.test('a group of claims or endings that fails is retried one by one: only the job at fault fails', async (t) => {
  const groups: string[][] = []
  const call = batched(async (items: string[]) => {
    groups.push(items)
    if (items.includes('bad')) throw new Error('capture failed')
    return items.map((i) => i.toUpperCase())
  })
  const results = await Promise.allSettled(['a', 'bad', 'b'].map(call))
  t.same(groups[0], ['a', 'bad', 'b'], 'calls of the same tick make one group')
  t.same(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    ['A', 'capture failed', 'B'],
  )
})

t.test('endings of one job in the same group: the first ends it, the rest find it ended (end_jobs)', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false, config: { callbacksAllowPrivate: true } })
  const c = await app.customer(14)
  const ids: string[] = []
  for (const text of ['a', 'b']) ids.push((await accept(app, c.key, text, { callbackUrl: 'http://127.0.0.1:9/hook' })).body.jobId)
  await app.services.db.sql(`update jobs set status = 'running', lease_until = now() + interval '1 minute' where id = any(?::uuid[])`, [
    ids,
  ])
  const [a, b] = ids as [string, string]
  const lost = { code: 'worker_lost', message: 'lost' } as const
  // One tick: one group. b's lease has not run out, so its worker_lost ending does not apply and its success does.
  const ended = await Promise.all([
    completeJob(app.services, a, { echo: 'a' }),
    failJob(app.services, a, lost, { statuses: ['running'] }),
    failJob(app.services, b, lost, { statuses: ['running'], leaseExpiredBy: new Date() }),
    completeJob(app.services, b, { echo: 'b' }),
    failJob(app.services, b, lost, { statuses: ['queued'] }),
  ])
  t.same(ended, [true, false, false, true, false])
  const jobs = await app.services.db.sql(`select id, status, result from jobs where id = any(?::uuid[]) order by created_at`, [ids])
  t.same(
    jobs.map((j) => [j.status, JSON.parse(j.result as string)]),
    [
      ['succeeded', { echo: 'a', usage: { credits: 7, balanceRemaining: 0, livemode: true } }],
      ['succeeded', { echo: 'b', usage: { credits: 7, balanceRemaining: 0, livemode: true } }],
    ],
  )
  t.same(await app.ledger(c.accountId), { balance: 0, reserved: 0, ledgerSum: 0 }, 'each charged once')
  const events = await app.services.db.sql(`select job_id, event from webhook_deliveries where job_id = any(?::uuid[])`, [ids])
  t.same(events.map((e) => `${e.job_id} ${e.event}`).sort(), ids.map((id) => `${id} job.completed`).sort(), 'one event each')
})

t.test('queued jobs survive a restart: accepted with no worker, run by the next one', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false })
  const c = await app.customer(14)
  const a = await accept(app, c.key, 'first')
  const b = await accept(app, c.key, 'second')
  await sleep(300)
  t.equal((await app.call(`/v1/jobs/${a.body.jobId}`, { key: c.key })).body.status, 'queued')
  const worker = await startWorker(app.services, { concurrency: 2 })
  t.teardown(() => worker.stop())
  t.equal((await waitFor(app, c.key, a.body.jobId, ['succeeded'])).body.status, 'succeeded')
  t.equal((await waitFor(app, c.key, b.body.jobId, ['succeeded'])).body.status, 'succeeded')
  t.same(await app.ledger(c.accountId), { balance: 0, reserved: 0, ledgerSum: 0 })
})

t.test('graceful shutdown lets a running job finish', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false })
  const c = await app.customer(7)
  const worker = await startWorker(app.services, { concurrency: 1, gracefulShutdownMs: 5000 })
  const a = await accept(app, c.key, 'sleep:800')
  await waitFor(app, c.key, a.body.jobId, ['running'])
  await worker.stop()
  const after = await app.call(`/v1/jobs/${a.body.jobId}`, { key: c.key })
  t.equal(after.body.status, 'succeeded', 'the job finished before the worker stopped')
  t.equal((await app.ledger(c.accountId)).balance, 0)
})

t.test('kill -9 of a worker mid-job: maintenance after the lease fails it as worker_lost, free', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false, config: { jobLeaseSeconds: 2 } })
  const c = await app.customer(7)
  const child = await workerProcess(t, app, { JOB_LEASE_SECONDS: '2' })
  const a = await accept(app, c.key, 'sleep:60000')
  const running = await waitFor(app, c.key, a.body.jobId, ['running'])
  t.equal(running.body.status, 'running', 'the separate worker claimed the job')
  child.kill('SIGKILL')
  await once(child, 'exit')
  t.equal((await runMaintenance(app.services)).workerLost, 0, 'the lease has not expired yet')
  await sleep(2500)
  const report = await runMaintenance(app.services)
  t.equal(report.workerLost, 1)
  const lost = await app.call(`/v1/jobs/${a.body.jobId}`, { key: c.key })
  t.equal(lost.body.status, 'failed')
  t.equal(lost.body.errorCode, 'worker_lost')
  t.same(await app.ledger(c.accountId), { balance: 7, reserved: 0, ledgerSum: 7 }, 'not charged, balance restored')
})

t.test('the 24 h deadline, and retention of finished jobs (injectable clock)', async (t) => {
  let clock = Date.now()
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: false, now: () => new Date(clock) })
  const c = await app.customer(21)
  // Three, so that maintenance fails them together (one group, core/jobs/end.ts).
  const ids: string[] = []
  for (const text of ['never run', 'nor this', 'nor that']) ids.push((await accept(app, c.key, text)).body.jobId)
  clock += 23 * 3600_000
  t.equal((await runMaintenance(app.services)).deadlineExceeded, 0)
  clock += 3600_000
  const report = await runMaintenance(app.services)
  t.equal(report.deadlineExceeded, 3)
  for (const id of ids) {
    const r = await app.call(`/v1/jobs/${id}`, { key: c.key })
    t.equal(r.body.status, 'failed')
    t.equal(r.body.errorCode, 'deadline_exceeded')
  }
  t.same(await app.ledger(c.accountId), { balance: 21, reserved: 0, ledgerSum: 21 })
  const [input] = await app.services.db.sql(`select count(*)::int as n from job_inputs where job_id = any(?::uuid[])`, [ids])
  t.equal(input!.n, 0, 'stored inputs removed at the deadline')
  // The graphile-worker jobs that were still queued find their jobs ended and do nothing.
  const worker = await startWorker(app.services, { concurrency: 1 })
  await sleep(500)
  await worker.stop()
  t.equal((await app.ledger(c.accountId)).balance, 21)
  clock += 31 * 86400_000
  t.equal((await runMaintenance(app.services)).jobsRemoved, 3, 'finished jobs are removed after 30 days')
  t.equal((await app.call(`/v1/jobs/${ids[0]}`, { key: c.key })).status, 404)
})

t.test('POST /internal/maintenance needs MAINTENANCE_SECRET and answers with counts', async (t) => {
  const closed = await startTestApp(t, { capabilities: [jobCapability] })
  t.equal(
    (await closed.call('/internal/maintenance', { method: 'POST' })).status,
    404,
    'without a configured secret the route does not exist',
  )
  const app = await startTestApp(t, {
    capabilities: [jobCapability],
    config: { maintenanceSecret: 'maintenance-secret-for-tests-0123456789' },
  })
  t.equal((await app.call('/internal/maintenance', { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status, 401)
  const ok = await app.call('/internal/maintenance', {
    method: 'POST',
    headers: { authorization: 'Bearer maintenance-secret-for-tests-0123456789' },
  })
  t.equal(ok.status, 200)
  t.match(ok.body, { workerLost: 0, deadlineExceeded: 0, holdsReleased: 0, jobsRemoved: 0 })
})
