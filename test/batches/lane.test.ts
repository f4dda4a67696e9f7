// C19: what keeps the batch lane from taking the API's CPU: the pace of items started per second across accounts,
// the acceptance of 10,000 items without stalling the event loop, and the per-account limit of POST /v1/batches.
import t from 'tap'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/run/registry.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const items = (n: number, prefix = 'item') =>
  Array.from({ length: n }, (_, i) => ({ customId: `${prefix}-${i}`, body: { text: `${prefix} ${i}` } }))

async function ended(app: TestApp, key: string, batchId: string, ms: number) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) {
    const res = await app.call(`/v1/batches/${batchId}`, { key })
    if (res.body.completedAt) return res.body
  }
  throw new Error(`batch ${batchId} did not end within ${ms} ms`)
}

/**
 * The longest time the event loop went without a turn, as CPU time of its thread (what the process's own work
 * blocked it for; on a shared machine the wall time adds whatever the scheduler gave to other processes).
 */
function longestStall() {
  let cpu = process.threadCpuUsage()
  let wall = performance.now()
  let cpuMs = 0
  let wallMs = 0
  const tick = setInterval(() => {
    const used = process.threadCpuUsage(cpu)
    cpuMs = Math.max(cpuMs, (used.user + used.system) / 1000)
    wallMs = Math.max(wallMs, performance.now() - wall)
    cpu = process.threadCpuUsage()
    wall = performance.now()
  }, 5)
  return {
    stop() {
      clearInterval(tick)
      return { cpuMs, wallMs }
    },
  }
}

t.test('BATCH_ITEMS_PER_SECOND paces the whole lane: two accounts’ items start no faster, and all of them end', async (t) => {
  const app = await startTestApp(t, { capabilities: [jobCapability], worker: true, env: { BATCH_ITEMS_PER_SECOND: '10' } })
  const a = await app.customer(1000)
  const b = await app.customer(1000)
  const first = await app.call('/v1/batches', { key: a.key, body: { endpoint: 'jobdoc', items: items(30, 'a') } })
  const second = await app.call('/v1/batches', { key: b.key, body: { endpoint: 'jobdoc', items: items(10, 'b') } })
  t.equal(first.status, 202)
  t.equal(second.status, 202)
  const [doneA, doneB] = await Promise.all([ended(app, a.key, first.body.batchId, 60_000), ended(app, b.key, second.body.batchId, 60_000)])
  t.same([doneA.counts.succeeded, doneB.counts.succeeded], [30, 10], 'every item of both batches ran')

  const starts = await app.services.db.sql<{ account_id: string; ms: number }>(
    `select j.account_id, extract(epoch from j.started_at - (select min(created_at) from batches)) * 1000 as ms
       from jobs j where j.batch_id is not null order by j.started_at`,
  )
  // The k-th item to start (from 0) has the lane's k-th slot at the earliest: k / 10 s after the first acceptance.
  const early = starts.map((s, k) => ({ k, ms: Number(s.ms) })).filter((s) => s.ms < s.k * 100 - 50)
  t.same(early, [], 'no item started before its slot (10 a second)')
  // Slots are handed out a second ahead: the second account waits for those (about 10), not for all 30.
  const firstOfB = starts.findIndex((s) => s.account_id === b.accountId)
  t.ok(firstOfB < 20, `the second account’s first item started ${firstOfB + 1}th, not behind the first account’s 30`)
})

t.test('a 10,000-item dry run never stalls the event loop; POST /v1/batches is limited per account', async (t) => {
  // parse prices each item by its size (its tokens counted), as the bench's 10,000 items are.
  const parseCap = checkManifest(parse as unknown as CapabilityManifest, 'parse', 'capabilities/parse')
  const app = await startTestApp(t, { capabilities: [jobCapability, parseCap], config: { rateLimits: { batches: 3 } } })
  const c = await app.customer(100)
  const body = JSON.stringify({
    endpoint: 'parse',
    items: Array.from({ length: 10_000 }, (_, i) => ({ customId: `invoice-${i}`, body: { text: `Invoice ${i} from ACME, total 10.00` } })),
  })
  const dryRun = () =>
    fetch(`${app.url}/v1/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', 'service-dry-run': '1' },
      body,
    })
  t.equal((await dryRun()).status, 200, 'the first request of the minute (the code it runs compiled once)')
  const stall = longestStall()
  const res = await dryRun()
  t.equal(res.status, 200)
  t.match(await res.json(), { dryRun: true, items: 10_000, price: 100_000 })
  const { cpuMs, wallMs } = stall.stop()
  t.ok(
    cpuMs < 100,
    `the event loop ran at most ${cpuMs.toFixed(0)} ms of CPU without a turn (under 100; ${wallMs.toFixed(0)} ms of wall time on this machine)`,
  )

  t.equal((await dryRun()).status, 200, 'the third request of the minute')
  const fourth = await app.call('/v1/batches', { key: c.key, body: { endpoint: 'jobdoc', items: [] } })
  t.equal(fourth.status, 429, 'past RATE_LIMITS.batches (3): refused before its body is checked (an empty batch would be 400)')
  t.equal(fourth.body.error.code, 'rate_limited')
  t.ok(Number(fourth.headers.get('retry-after')) >= 1, 'with Retry-After')
  const other = await app.customer(100)
  const theirs = await app.call('/v1/batches', { key: other.key, body: { endpoint: 'jobdoc', items: items(1) } })
  t.equal(theirs.status, 202, 'another account has its own limit')
})
