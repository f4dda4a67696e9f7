// Worker liveness: a worker killed with jobs fetched gives them back within its heartbeat bound, not after
// graphile-worker's 4 hours; what it had started still ends worker_lost (C7); a graceful stop gives back what it
// prefetched at once; /admin/workers and /metrics show the registry. Real PostgreSQL, real worker processes.
import { once } from 'node:events'
import t from 'tap'
import { startWorker } from '../../core/worker.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { runAdmin } from '../../scripts/admin.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { spawnWorker } from '../helpers/spawn-worker.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const HEARTBEAT_S = 0.5
const DEAD_AFTER_S = 2
const LIVENESS = { WORKER_HEARTBEAT_SECONDS: String(HEARTBEAT_S), WORKER_DEAD_AFTER_SECONDS: String(DEAD_AFTER_S), JOB_LEASE_SECONDS: '2' }
const ADMIN = { authorization: 'Bearer admin-secret-for-tests-0123456789' }

const accept = async (app: TestApp, key: string, text: string) => {
  const res = await app.call('/v1/jobdoc', { body: { text, async: true }, key })
  if (res.status !== 202) throw new Error(`accept: ${res.status} ${res.text}`)
  return res.body.jobId as string
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    const v = await probe()
    if (v) return v
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** graphile-worker's queue entries: who holds each, and whether another worker could fetch it. */
const queueEntries = (app: TestApp) =>
  app.services.db.sql<{ locked_by: string | null; available: boolean }>(
    `select locked_by, is_available as available from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'run_capability'`,
  )

t.test(
  'a worker killed with a full local queue: its fetched jobs run on another worker within the bound, its started ones end worker_lost',
  async (t) => {
    const app = await startTestApp(t, {
      capabilities: [jobCapability],
      env: LIVENESS,
      config: { adminToken: 'admin-secret-for-tests-0123456789', metricsToken: 'metrics-secret-for-tests-0123456789' },
    })
    const c = await app.customer(7 * 6)
    // Six jobs queued before the doomed worker starts: with 2 slots and a prefetch of 6 it fetches all six in one
    // round trip, starts two and keeps four waiting in its local queue.
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push(await accept(app, c.key, 'sleep:4000'))
    const doomed = await spawnWorker(t, app.services.db.url, { ...LIVENESS, WORKER_CONCURRENCY: '2', WORKER_PREFETCH: '6' })
    await until('two jobs running and six held', async () => {
      const [r] = await app.services.db.sql(`select count(*)::int as n from jobs where id = any(?::uuid[]) and status = 'running'`, [ids])
      const held = (await queueEntries(app)).filter((e) => e.locked_by === doomed.id).length
      return r!.n === 2 && held === 6
    })
    const started = new Set(
      (await app.services.db.sql(`select id from jobs where id = any(?::uuid[]) and status = 'running'`, [ids])).map((r) => r.id as string),
    )
    const listed = (await app.call('/admin/workers', { headers: ADMIN })).body
    t.match(
      listed.workers,
      [
        {
          id: doomed.id,
          pid: doomed.child.pid,
          alive: true,
          concurrency: 2,
          prefetch: 6,
          lockedJobs: 6,
          lockedJobsByTask: { run_capability: 6 },
        },
      ],
      '/admin/workers lists the worker, its heartbeat and the six jobs it holds',
    )

    doomed.child.kill('SIGKILL')
    await once(doomed.child, 'exit')
    const killedAt = Date.now()
    // Another worker, as a restarted one would be (in this process: it starts in milliseconds where a process
    // takes seconds on a loaded machine); its timer finds the dead one.
    const rescuer = await startWorker(app.services, { concurrency: 8 })
    t.teardown(() => rescuer.stop())
    const fetched = ids.filter((id) => !started.has(id))
    const restarted = await until('the four fetched jobs to start again', async () => {
      const rows = await app.services.db.sql(`select started_at from jobs where id = any(?::uuid[]) and status <> 'queued'`, [fetched])
      return rows.length === 4 && rows.map((r) => new Date(r.started_at as string).getTime())
    })
    const recoverySeconds = (Math.max(...restarted) - killedAt) / 1000
    t.comment(
      `the four fetched jobs started again ${recoverySeconds.toFixed(2)} s after the kill (bound ${DEAD_AFTER_S} s, heartbeat ${HEARTBEAT_S} s)`,
    )
    // The bound, a heartbeat's phase, a poll, and slack for a shared 2-core machine: seconds where it was 4 hours.
    t.ok(recoverySeconds < DEAD_AFTER_S + 2 * HEARTBEAT_S + 3, 'within the heartbeat bound')

    const jobs = await until('every job to end', async () => {
      const rows = await app.services.db.sql(`select id, status, error from jobs where id = any(?::uuid[])`, [ids])
      return rows.every((r) => r.status === 'succeeded' || r.status === 'failed') && rows
    })
    for (const j of jobs)
      if (started.has(j.id as string))
        t.match(j, { status: 'failed', error: { code: 'worker_lost' } }, 'started under the dead worker: worker_lost, never run again')
      else t.equal(j.status, 'succeeded', 'only fetched by the dead worker: ran on the other one')
    await app.expectLedger(t, c.accountId, 7 * 2)
    t.same(await queueEntries(app), [], 'every queue entry completed, the started jobs’ included (their claim found them running)')

    const registry = (await app.call('/admin/workers', { headers: ADMIN })).body
    t.same(
      registry.workers.map((w: { id: string; alive: boolean }) => [w.id, w.alive]),
      [[rescuer.id, true]],
      'the dead worker is gone from the registry',
    )
    t.match(registry, {
      jobsLockedByDeadWorkers: 0,
      recoveries: [{ workerId: doomed.id, registered: true, jobsReturned: 6, recoveredBy: rescuer.id }],
      recoveriesTotal: 1,
      jobsReturnedTotal: 6,
    })
    const printed: any[] = []
    const server = process.env.DATABASE_URL // scripts/test.ts sets it
    process.env.DATABASE_URL = app.services.db.url
    t.equal(await runAdmin(['workers'], (j) => printed.push(j)), 0)
    process.env.DATABASE_URL = server
    t.same(
      [printed[0].workers.map((w: { id: string }) => w.id), printed[0].recoveries],
      [[rescuer.id], registry.recoveries],
      'npm run admin -- workers prints the same',
    )
    const metrics = (await app.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })).text
    t.match(metrics, /^capapi_worker_recoveries_total 1$/m)
    t.match(metrics, /^capapi_worker_recovered_jobs_total 6$/m)
    t.match(metrics, /^capapi_jobs_locked_by_dead_workers 0$/m)
    t.match(metrics, /^capapi_workers_live 1$/m)
  },
)

t.test('a graceful stop deregisters and gives back what it prefetched at once, ready for any worker', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], env: LIVENESS })
  const c = await app.customer(7 * 5)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push(await accept(app, c.key, 'sleep:400'))
  const first = await startWorker(app.services, { concurrency: 1, prefetch: 4, gracefulShutdownMs: 5000 })
  await until('one job running, four held', async () => (await queueEntries(app)).filter((e) => e.locked_by === first.id).length === 4)
  await first.stop()
  const entries = await queueEntries(app)
  t.equal(entries.length, 4, 'the running job finished; four entries left')
  t.ok(
    entries.every((e) => e.locked_by === null && e.available),
    'unlocked with their attempt given back: fetchable at once, not after a bound',
  )
  t.same(await app.services.db.sql(`select id from workers`), [], 'deregistered')
  t.same(await app.services.db.sql(`select id from worker_recoveries`), [], 'a graceful stop is not a recovery')
  const second = await startWorker(app.services, { concurrency: 4 })
  t.teardown(() => second.stop())
  await until('every job to succeed', async () => {
    const rows = await app.services.db.sql(`select status from jobs where id = any(?::uuid[])`, [ids])
    return rows.every((r) => r.status === 'succeeded')
  })
  await app.expectLedger(t, c.accountId, 0)
})

t.test('recovery is by lock holder, for every task: a holder that never registered, and a live worker left alone', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], env: LIVENESS, config: { callbacksAllowPrivate: true } })
  const { db } = app.services
  const c = await app.customer(7)
  await accept(app, c.key, 'never fetched by a worker')
  // Entries of other tasks, as graphile-worker queues them (max_attempts 1, as every task of ours).
  await db.sql(`select graphile_worker.add_job('deliver_webhook', '{"deliveryId": "dlv_x", "attempt": 1}', max_attempts => 1)`)
  await db.sql(
    `select graphile_worker.add_job('auto_recharge', '{"accountId": "00000000-0000-4000-8000-000000000000"}', max_attempts => 1)`,
  )
  await db.sql(`insert into workers (id, host, pid, concurrency, prefetch, dead_after) values ('pool-live', 'h', 1, 1, 1, '1 hour')`)
  // As get_job leaves a fetch: attempts counted, locked. One entry each by a live worker, by a process that died
  // before it registered (locked two minutes ago) and by one that may still be registering (locked just now).
  await db.sql(
    `update graphile_worker._private_jobs j set attempts = 1, locked_at = now() - case t.identifier when 'auto_recharge' then interval '0' else interval '2 minutes' end,
            locked_by = case t.identifier when 'run_capability' then 'pool-live' when 'deliver_webhook' then 'pool-never-registered' else 'pool-registering' end
       from graphile_worker._private_tasks t where t.id = j.task_id`,
  )
  const report = await runMaintenance(app.services)
  t.match(report, { deadWorkers: 1, jobsReturned: 1 })
  const rows = await db.sql(
    `select t.identifier as task, j.locked_by, j.attempts, j.is_available from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id order by t.identifier`,
  )
  t.same(rows, [
    { task: 'auto_recharge', locked_by: 'pool-registering', attempts: 1, is_available: false },
    { task: 'deliver_webhook', locked_by: null, attempts: 0, is_available: true },
    { task: 'run_capability', locked_by: 'pool-live', attempts: 1, is_available: false },
  ])
  t.match(await db.sql(`select worker_id, registered, jobs_returned, recovered_by from worker_recoveries`), [
    { worker_id: 'pool-never-registered', registered: false, jobs_returned: 1, recovered_by: 'maintenance' },
  ])

  // Why not graphile-worker's own force_unlock_workers(): it keeps the attempt the fetch counted, so an entry of
  // max_attempts 1 is unlocked yet never fetched again.
  await db.sql(`update graphile_worker._private_jobs set locked_by = 'pool-x', locked_at = now(), attempts = 1`)
  await db.sql(`select graphile_worker.force_unlock_workers(array['pool-x'])`)
  t.same(
    (await db.sql(`select distinct is_available from graphile_worker._private_jobs`)).map((r) => r.is_available),
    [false],
    'force_unlock_workers leaves them unavailable for ever',
  )
})
