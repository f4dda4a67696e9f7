// `npm run chaos`: an operator's worst afternoon. The API and one worker run as separate processes, as
// `npm run start:api` / `start:worker` run them (JOB_LEASE_SECONDS=3, the maintenance pass every 2 s through
// POST /internal/maintenance, the worker's own settings as shipped: concurrency, prefetch, heartbeat, bound).
// 200 async /v1/parse jobs with a callback are sent at once by 8 clients (each under its own Idempotency-Key,
// resent on a network error, a 5xx or a 409 in use, as the SDK does); meanwhile the API is killed with SIGKILL
// once and restarted, and the worker 8 times, 2–4 s after each restart. Then, within 60 s of the last kill:
//  - every job is terminal, and every terminal job has exactly one webhook delivery, delivered and received with a
//    valid Standard Webhooks signature (a receiver in this process);
//  - nothing is reserved and the money is exact (one charge of the price per succeeded job, balance = ledger);
//  - no graphile-worker job is locked by a worker that is not alive, and every killed worker has been recovered.
// It prints the time each check first held, and the recovery time of each kill: from the SIGKILL to the dead
// worker's jobs back in the queue (worker_recoveries), p50 / p99. Exits 1 when a check fails.
// CHAOS_JOBS (200), CHAOS_WORKER_KILLS (8), CHAOS_MODEL_DELAY_MS (2000: how long a model call takes),
// CHAOS_STEADY_WORKERS (0: workers beside the one killed, never killed themselves), CHAOS_CHECKOUT (another checkout
// whose API and workers to run, e.g. one from before the worker registry, node_modules linked), and any
// WORKER_* setting of the README, passed on to the workers.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { firstLine, freePort, startFlags } from './children.ts'
import { benchDatabase } from './setup.ts'

const JOBS = Number(process.env.CHAOS_JOBS ?? 200)
const WORKER_KILLS = Number(process.env.CHAOS_WORKER_KILLS ?? 8)
const STEADY_WORKERS = Number(process.env.CHAOS_STEADY_WORKERS ?? 0)
const MODEL_DELAY_MS = Number(process.env.CHAOS_MODEL_DELAY_MS ?? 2000)
const DEADLINE_S = 60
const PRICE = 10 // parse, a short text
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!

const database = await benchDatabase('chaos', 4)
const { url, db } = database
const children = new Set<ChildProcess>()
const CHECKOUT = process.env.CHAOS_CHECKOUT ?? '.'
function child(file: string, args: string[], env: Record<string, string>, nodeArgs: string[], cwd = '.'): ChildProcess {
  const c = spawn(process.execPath, [...nodeArgs, file, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(c)
  c.once('exit', () => children.delete(c))
  return c
}

// ---------- the processes ----------
const model = child('scripts/bench/model.ts', [], { BENCH_MODEL_DELAY_MS: String(MODEL_DELAY_MS) }, ['--import', 'tsx'])
const modelURL = await firstLine(model)
const port = await freePort()
const ADMIN = randomUUID()
const MAINTENANCE = randomUUID()
const env = {
  DATABASE_URL: url,
  PORT: String(port),
  OPENAI_BASE_URL: modelURL,
  OPENAI_API_KEY: 'chaos',
  AI_WIRE_API: 'chat',
  RATE_LIMITS: JSON.stringify({ parse: 1e9 }),
  MAIL_TO_LOG: 'true',
  CALLBACKS_ALLOW_PRIVATE: 'true',
  JOB_LEASE_SECONDS: '3',
  ADMIN_TOKEN: ADMIN,
  MAINTENANCE_SECRET: MAINTENANCE,
}
async function startApi() {
  const c = child('core/server.ts', ['--api'], env, startFlags(CHECKOUT, 'start:api'), CHECKOUT)
  await firstLine(c, (l) => l.includes('API listening'))
  return c
}
async function startWorker() {
  const c = child('core/server.ts', ['--worker'], env, startFlags(CHECKOUT, 'start:worker'), CHECKOUT)
  await firstLine(c, (l) => l.includes('Worker running'))
  return c
}
let api = await startApi()
let worker = await startWorker()
for (let i = 0; i < STEADY_WORKERS; i++) await startWorker()
const base = `http://127.0.0.1:${port}`

// ---------- the account, as an operator makes one ----------
async function admin(path: string, body: object) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}
const account = await admin('/admin/accounts', { email: `chaos-${Date.now()}@example.test` })
const accountId = account.id as string
const CREDITS = PRICE * JOBS * 2
await admin(`/admin/accounts/${accountId}/credits`, { credits: CREDITS, reason: 'chaos' })
const key = (await admin(`/admin/accounts/${accountId}/keys`, { name: 'chaos' })).key as string
const verifier = new Webhook((await admin(`/admin/accounts/${accountId}/webhook-secret`, {})).secret as string)

// ---------- the webhook receiver ----------
const received = new Map<string, number[]>() // webhook-id → when each copy arrived
let badSignatures = 0
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString()))
  req.on('end', () => {
    try {
      verifier.verify(body, req.headers as Record<string, string>)
      const id = req.headers['webhook-id'] as string
      received.set(id, [...(received.get(id) ?? []), Date.now()])
      res.writeHead(204).end()
    } catch {
      badSignatures++
      res.writeHead(400).end()
    }
  })
}).listen(0, '127.0.0.1')
await once(receiver, 'listening')
const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`

// ---------- submissions, maintenance, kills ----------
const jobIds = new Set<string>()
let resent = 0
async function submit(i: number) {
  const idempotencyKey = `chaos-${i}-${randomUUID()}`
  for (;;) {
    try {
      const res = await fetch(`${base}/v1/parse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ text: `Invoice ${i} from ACME, total 10.00`, async: true, callbackUrl }),
      })
      const body = (await res.json()) as { jobId?: string }
      if (res.status === 202 && body.jobId) return jobIds.add(body.jobId)
      if (res.status < 500 && res.status !== 409) throw new Error(`submission ${i}: ${res.status} ${JSON.stringify(body)}`)
    } catch (e) {
      if ((e as Error).message.startsWith('submission')) throw e
    }
    resent++
    await sleep(250)
  }
}
// All at once by 8 clients, as a batch is sent: the queue is deep when the first kills come.
let next = 0
const submissions = Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < JOBS) await submit(next++)
  }),
)
let maintaining = true
const maintenance = (async () => {
  while (maintaining) {
    await fetch(`${base}/internal/maintenance`, { method: 'POST', headers: { authorization: `Bearer ${MAINTENANCE}` } }).catch(() => {})
    await sleep(2000)
  }
})()

async function kill(c: ChildProcess): Promise<number> {
  c.kill('SIGKILL')
  await once(c, 'exit')
  return Date.now()
}
const kills: { workerId: string; at: number }[] = []
// The API once, while the batch is being sent.
const apiKill = (async () => {
  await sleep(500 + Math.random() * 1000)
  await kill(api)
  api = await startApi()
})()
for (let k = 1; k <= WORKER_KILLS; k++) {
  await sleep(2000 + Math.random() * 2000)
  const [row] = await db.sql<{ id: string }>(`select id from workers where pid = ?`, [worker.pid])
  kills.push({ workerId: row?.id ?? '', at: await kill(worker) })
  worker = await startWorker()
}
await apiKill
const lastKill = kills.at(-1)!.at
await submissions

// ---------- the checks, polled until they all hold or the deadline passes ----------
const ids = [...jobIds]
type Check = { name: string; holds: () => Promise<string | true>; at?: number; last?: string }
const checks: Check[] = [
  {
    name: 'every job terminal',
    holds: async () => {
      const [r] = await db.sql(
        `select count(*) filter (where status in ('queued', 'running'))::int as open from jobs where id = any(?::uuid[])`,
        [ids],
      )
      return r!.open === 0 || `${r!.open} not terminal`
    },
  },
  {
    name: 'one webhook per terminal job, delivered and received signed',
    holds: async () => {
      const rows = await db.sql<{ id: string; status: string; event: string; job_status: string }>(
        `select d.id, d.status, d.event, j.status as job_status from jobs j left join webhook_deliveries d on d.job_id = j.id where j.id = any(?::uuid[])`,
        [ids],
      )
      const perJob = new Map<string, number>()
      for (const r of rows) if (r.id) perJob.set(r.id, (perJob.get(r.id) ?? 0) + 1)
      const missing = rows.filter((r) => !r.id).length
      const wrongEvent = rows.filter((r) => r.id && r.event !== (r.job_status === 'succeeded' ? 'job.completed' : 'job.failed')).length
      const undelivered = rows.filter((r) => r.id && (r.status !== 'delivered' || !received.has(r.id))).length
      const events = rows.filter((r) => r.id).length
      if (missing || wrongEvent || undelivered || events !== ids.length || badSignatures)
        return `${missing} jobs without an event, ${events} events for ${ids.length} jobs, ${undelivered} not delivered, ${wrongEvent} wrong events, ${badSignatures} bad signatures`
      return true
    },
  },
  {
    name: 'nothing reserved, money exact',
    holds: async () => {
      const [a] = await db.sql(
        `select a.balance::bigint as balance, a.reserved::bigint as reserved,
                (select coalesce(sum(amount), 0) from ledger l where l.account_id = a.id)::bigint as ledger,
                (select count(*) from ledger l where l.account_id = a.id and l.kind = 'charge')::int as charges,
                (select count(*) from jobs j where j.account_id = a.id and j.status = 'succeeded')::int as succeeded
           from accounts a where a.id = ?`,
        [accountId],
      )
      const [balance, reserved, ledger, charges, succeeded] = ['balance', 'reserved', 'ledger', 'charges', 'succeeded'].map((k) =>
        Number(a![k]),
      )
      const exact = reserved === 0 && balance === ledger && charges === succeeded && balance === CREDITS - PRICE * succeeded!
      return exact || `reserved ${reserved}, balance ${balance}, ledger ${ledger}, ${charges} charges for ${succeeded} succeeded jobs`
    },
  },
  {
    name: 'every killed worker recovered (deregistered, its jobs returned)',
    holds: async () => {
      if (kills.some((k) => !k.workerId)) return 'a killed worker had not registered'
      const [r] = await db.sql(`select count(*)::int as n from workers where id = any(?::text[])`, [kills.map((k) => k.workerId)])
      return r!.n === 0 || `${r!.n} still registered`
    },
  },
  {
    name: 'no graphile-worker job locked by a worker not alive',
    holds: async () => {
      const [r] = await db.sql(
        `select count(*)::int as n from graphile_worker._private_jobs j where j.locked_by is not null
            and not exists (select from workers w where w.id = j.locked_by and w.heartbeat_at >= now() - w.dead_after)`,
      )
      return r!.n === 0 || `${r!.n} locked by dead workers`
    },
  },
]
while (Date.now() < lastKill + DEADLINE_S * 1000 && checks.some((c) => !c.at)) {
  for (const c of checks.filter((x) => !x.at)) {
    const result = await c.holds()
    if (result === true) c.at = Date.now()
    else c.last = result
  }
  await sleep(250)
}
// Held once is not enough for the money and the locks: read them all again at the end.
for (const c of checks) if ((await c.holds()) !== true) c.at = undefined
maintaining = false
await maintenance

const recoveries = await db.sql<{ worker_id: string; recovered_at: string; jobs_returned: number; recovered_by: string }>(
  `select worker_id, recovered_at, jobs_returned, recovered_by from worker_recoveries`,
)
const byWorker = new Map(recoveries.map((r) => [r.worker_id, r]))
const recoverySeconds = kills.flatMap((k) => {
  const r = byWorker.get(k.workerId)
  return r ? [(new Date(r.recovered_at).getTime() - k.at) / 1000] : []
})
const [outcomes] = await db.sql(
  `select count(*) filter (where status = 'succeeded')::int as succeeded,
          count(*) filter (where status = 'failed' and error->>'code' = 'worker_lost')::int as lost,
          count(*) filter (where status = 'failed' and error->>'code' <> 'worker_lost')::int as other
     from jobs where id = any(?::uuid[])`,
  [ids],
)
// A delivery whose worker died between the POST and recording it is sent again (same webhook-id, which receivers
// deduplicate on): count those whose first copy arrived shortly before a worker kill.
const duplicates = [...received.values()].filter((at) => at.length > 1)
// For each: how long before the next worker kill its first copy arrived.
const toNextKill = duplicates.map((at) => Math.min(...kills.filter((k) => k.at >= at[0]!).map((k) => k.at - at[0]!)))
const [settings] = await db.sql(`select concurrency, prefetch, extract(epoch from dead_after)::float8 as dead_after from workers limit 1`)
console.log(`
## Chaos${CHECKOUT === '.' ? '' : ` (${CHECKOUT})`}: ${JOBS} async parse jobs with callbacks, ${WORKER_KILLS} worker SIGKILLs and one API SIGKILL${STEADY_WORKERS ? `, ${STEADY_WORKERS} more worker(s) never killed` : ''}

- worker settings: ${settings ? `concurrency ${settings.concurrency}, prefetch ${settings.prefetch}, dead after ${settings.dead_after} s` : 'the workers did not register'}; JOB_LEASE_SECONDS=3, maintenance every 2 s, model ${MODEL_DELAY_MS} ms per call
- ${jobIds.size} jobs accepted (${resent} submission attempts resent while the API was down); ${outcomes!.succeeded} succeeded, ${outcomes!.lost} failed worker_lost, ${outcomes!.other} failed otherwise
- webhooks: ${received.size} distinct deliveries received, ${duplicates.length} received more than once (same webhook-id; the first copy arrived ${duplicates.length ? `${Math.min(...toNextKill)}–${Math.max(...toNextKill)} ms` : '–'} before the next worker kill), ${badSignatures} bad signatures

| check | held after the last kill |
|---|---|
${checks.map((c) => `| ${c.name} | ${c.at ? `**${((c.at - lastKill) / 1000).toFixed(1)} s**` : `NOT within ${DEADLINE_S} s: ${c.last}`} |`).join('\n')}

Recovery after each worker kill (SIGKILL → its jobs back in the queue): ${kills
  .map((k) => {
    const r = byWorker.get(k.workerId)
    return r ? `${((new Date(r.recovered_at).getTime() - k.at) / 1000).toFixed(1)} s (${r.jobs_returned} jobs)` : 'not recovered'
  })
  .join(', ')}
- **p50 ${recoverySeconds.length ? pct(recoverySeconds, 50).toFixed(1) : '–'} s, p99 ${recoverySeconds.length ? pct(recoverySeconds, 99).toFixed(1) : '–'} s** over ${recoverySeconds.length} kills
`)

for (const c of [...children]) {
  c.kill('SIGTERM')
  await once(c, 'exit')
}
receiver.close()
await db.close()
await database.stop()
process.exit(checks.every((c) => c.at) && recoverySeconds.length === kills.length ? 0 : 1)
