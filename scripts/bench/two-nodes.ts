// Two API processes on one account: does the account's row serialise them? Two `node core/server.ts --api`
// processes with CREDIT_LEASE=off and two with CREDIT_LEASE=on, on one database and the fake model over HTTP; each
// mode's pair serves one account (10,000,000 credits) through one key, the calls split evenly over its two
// processes (a load generator each), rounds of the two modes taking turns in alternating order. While a round runs,
// a sampler on its own connection (to the `postgres` database, so its transactions are not counted) reads every
// ~5 ms which of the bench database's backends wait for a heavyweight lock (pg_stat_activity, wait_event_type
// 'Lock'), which lock (pg_locks, not granted) and on which table's row (the tuple lock the waiter holds). After the
// rounds every API process is stopped (which settles its blocks) and each account's money is checked.
// `nice -n 10 npx tsx scripts/bench/two-nodes.ts [calls per process per round] [rounds per mode] [connections per process]`
import { loadavg } from 'node:os'
import pg from 'pg'
import { withDatabase } from '../../devkit/database.ts'
import { benchAccount, benchDatabase } from './setup.ts'
import { cpuMs, pgCpu, pgDelta, ppidOf } from './proc.ts'
import { benchServers, children, runLoad, startModel, stop, type Api } from './servers.ts'

const CALLS = Number(process.argv[2] ?? 2000)
const ROUNDS = Number(process.argv[3] ?? 2)
const CONNECTIONS = Number(process.argv[4] ?? 25)
const PRICE = 2 // classify
const SAMPLE_MS = 5
// pg_stat_database shows a backend's counts once it reports them: at most every second, and 10 s after it went idle.
const STATS_SETTLE_MS = 11_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const body = JSON.stringify({ text: 'My card was charged twice.', labels: ['billing', 'technical'] })

const bench = await benchDatabase('two_nodes')
const [me] = await bench.db.sql<{ pid: number; db: string }>('select pg_backend_pid() as pid, current_database() as db')
const postmaster = ppidOf(me!.pid)
const dbName = me!.db
const relations = new Map(
  (
    await bench.db.sql<{ oid: number; name: string }>(
      `select oid::int as oid, relname as name from pg_class where relnamespace = 'public'::regnamespace`,
    )
  ).map((r) => [r.oid, r.name]),
)
const transactions = async () => {
  const [row] = await bench.db.sql<{ n: string }>(
    `select pg_stat_clear_snapshot(), xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`,
  )
  return Number(row!.n)
}

const model = await startModel()
const { startApi } = benchServers(bench.url)
const modes = ['off', 'on'] as const
type Mode = (typeof modes)[number]
const apis: Record<Mode, Api[]> = { off: [], on: [] }
const accounts = {} as Record<Mode, { accountId: string; key: string }>
const answered: Record<Mode, Record<string, number>> = { off: {}, on: {} }
for (const mode of modes) {
  // One key for both processes of a mode: a customer's key behind a load balancer. Each process leases its own block
  // of it (a block belongs to a process and a key), so the key's row is shared by both processes' refills too.
  accounts[mode] = await benchAccount(bench.db, `two-nodes-${mode}`, 10_000_000)
  for (let i = 0; i < 2; i++) apis[mode].push(await startApi(model.baseURL, { CREDIT_LEASE: mode }))
}

async function calls(mode: Mode, n: number, connections = CONNECTIONS) {
  const rs = await Promise.all(
    apis[mode].map((api) =>
      runLoad({
        url: `${api.url}/v1/classify`,
        method: 'POST',
        body,
        headers: {
          authorization: `Bearer ${accounts[mode].key}`,
          'content-type': 'application/json',
          'service-cache': 'no-store', // every call reaches the model and is charged the full price
        },
        connections,
        amount: n, // every answer awaited: the ledger can be compared with the answers
      }),
    ),
  )
  for (const r of rs) for (const [status, k] of Object.entries(r.statuses)) answered[mode][status] = (answered[mode][status] ?? 0) + k
  return { ok: rs.reduce((s, r) => s + (r.statuses['200'] ?? 0), 0), ms: Math.max(...rs.map((r) => r.duration)) * 1000 }
}

// The sampler: one query per tick on its own connection; what each waiting backend waits for.
const sampler = new pg.Client({ connectionString: withDatabase(bench.url, 'postgres') })
await sampler.connect()
const samplerPid = (await sampler.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
/** Samples until `until` settles: when each was taken, how many backends waited, and for what. */
async function sample(until: Promise<unknown>) {
  let done = false
  void until.finally(() => (done = true))
  const ticks: { t: number; waiting: number }[] = []
  const what = new Map<string, number>()
  while (!done) {
    const t = performance.now()
    const { rows } = await sampler.query<{ locktype: string; relation: number | null; row_of: number | null; query: string }>(
      `select w.locktype, w.relation::int as relation,
              (select t.relation::int from pg_locks t where t.pid = a.pid and t.locktype = 'tuple' and t.granted limit 1) as row_of,
              a.query
         from pg_stat_activity a join pg_locks w on w.pid = a.pid and not w.granted
        where a.datname = $1 and a.wait_event_type = 'Lock'`,
      [dbName],
    )
    ticks.push({ t, waiting: rows.length })
    for (const r of rows) {
      const table = relations.get(r.relation ?? r.row_of ?? -1) ?? '?'
      const statement = /from (\w+)\(/.exec(r.query)?.[1] ?? r.query.slice(0, 30)
      const k = `${r.locktype} on a row of ${table}, waiting: ${statement}`
      what.set(k, (what.get(k) ?? 0) + 1)
    }
    await sleep(Math.max(0, SAMPLE_MS - (performance.now() - t)))
  }
  return { ticks, what }
}

interface Totals {
  calls: number
  ms: number
  samples: number
  waiting: number
  /** Σ waiting backends × the time since the previous sample: lock wait in ms, estimated. */
  waitMs: number
  what: Map<string, number>
  xacts: number
  api: number
  postgres: number
}
const totals: Record<Mode, Totals> = Object.fromEntries(
  modes.map((m) => [m, { calls: 0, ms: 0, samples: 0, waiting: 0, waitMs: 0, what: new Map(), xacts: 0, api: 0, postgres: 0 }]),
) as Record<Mode, Totals>

// Warm-up: JIT, key caches, connection pools, prepared statements.
for (const mode of modes) await calls(mode, 300)
await sleep(STATS_SETTLE_MS)
const idle0 = await transactions()
await sleep(STATS_SETTLE_MS)
let x0 = await transactions()
const idlePerMs = (x0 - idle0 - 1) / STATS_SETTLE_MS // background transactions (none expected), per ms
const started = new Date()
const load0 = loadavg()

for (let round = 0; round < ROUNDS; round++) {
  for (const mode of round % 2 ? [...modes].reverse() : modes) {
    const procs = apis[mode].map((a) => a.proc.pid!)
    const api0 = procs.reduce((s, pid) => s + cpuMs(pid), 0)
    const pg0 = pgCpu(postmaster)
    const sampler0 = cpuMs(samplerPid)
    const t0 = performance.now()
    const served = calls(mode, CALLS)
    const seen = await sample(served)
    const { ok, ms } = await served
    const end = performance.now()
    // The samples while the calls ran (not while the load generators started): the last `ms` before the end.
    const ticks = seen.ticks.filter((k) => k.t >= end - ms)
    const waiting = seen.ticks.reduce((s, k) => s + k.waiting, 0)
    const tot = totals[mode]
    tot.api += procs.reduce((s, pid) => s + cpuMs(pid), 0) - api0
    tot.postgres += pgDelta(pg0, pgCpu(postmaster)) - (cpuMs(samplerPid) - sampler0)
    tot.calls += ok
    tot.ms += ms
    tot.samples += ticks.length
    tot.waiting += waiting
    tot.waitMs += seen.ticks.reduce((s, k, i) => s + k.waiting * (i ? k.t - seen.ticks[i - 1]!.t : SAMPLE_MS), 0)
    for (const [k, n] of seen.what) tot.what.set(k, (tot.what.get(k) ?? 0) + n)
    await sleep(STATS_SETTLE_MS)
    const x = await transactions()
    tot.xacts += x - x0 - 1 - idlePerMs * (end - t0 + STATS_SETTLE_MS)
    x0 = x
    console.error(
      `round ${round + 1}, CREDIT_LEASE=${mode}: ${ok} calls in ${(ms / 1000).toFixed(1)} s, ${waiting} lock waits in ${ticks.length} samples`,
    )
  }
}
const finished = new Date()
const load1 = loadavg()

// Every API process stopped: each settles its blocks at shutdown.
await Promise.all([...apis.off, ...apis.on].map((a) => stop(a.proc)))
const exact: string[] = []
for (const mode of modes) {
  const [m] = await bench.db.sql<{
    balance: string
    reserved: string
    sum: string
    charges: string
    charged: string
    holds: string
    leases: string
    open: string
  }>(
    `select a.balance, a.reserved,
            (select sum(amount) from ledger l where l.account_id = a.id) as sum,
            (select count(*) from ledger l where l.account_id = a.id and l.kind = 'charge') as charges,
            (select coalesce(-sum(amount), 0) from ledger l where l.account_id = a.id and l.kind = 'charge') as charged,
            (select count(*) from holds h where h.account_id = a.id and h.state = 'open') as holds,
            (select count(*) from credit_leases c where c.account_id = a.id) as leases,
            (select count(*) from credit_leases c where c.account_id = a.id and c.state = 'open') as open
       from accounts a where a.id = ?`,
    [accounts[mode].accountId],
  )
  const ok = answered[mode]['200'] ?? 0
  const good =
    Number(m!.charges) === ok &&
    Number(m!.charged) === PRICE * ok &&
    m!.balance === m!.sum &&
    Number(m!.reserved) === 0 &&
    Number(m!.holds) === 0 &&
    Number(m!.open) === 0
  exact.push(
    `- \`CREDIT_LEASE=${mode}\`: answers ${JSON.stringify(answered[mode])}; ${m!.charges} charges, ${m!.charged} credits charged (${PRICE} × ${ok} = ${PRICE * ok}); ` +
      `balance ${m!.balance} = sum(ledger) ${m!.sum}; reserved ${m!.reserved}; open holds ${m!.holds}; blocks ${m!.leases} taken, ${m!.open} open after shutdown: **${good ? 'exact' : 'NOT EXACT'}**`,
  )
}

const per = (n: number, t: Totals) => n / t.calls
const row = (mode: Mode) => {
  const t = totals[mode]
  return `| \`CREDIT_LEASE=${mode}\` | ${t.calls.toLocaleString('en-US')} | ${Math.round(t.calls / (t.ms / 1000))} | **${((t.waiting * 1000) / t.calls).toFixed(1)}** | ${(t.waitMs / t.calls).toFixed(3)} | ${(t.waiting / t.samples).toFixed(3)} | ${t.samples.toLocaleString('en-US')} (${(t.ms / t.samples).toFixed(1)}) | ${per(t.xacts, t).toFixed(3)} | ${per(t.api, t).toFixed(3)} | ${per(t.postgres, t).toFixed(3)} |`
}
const ratio = (f: (t: Totals) => number) => (f(totals.on) / f(totals.off)).toFixed(2)
console.log(`
${ROUNDS} rounds per mode of ${CALLS} calls per process (2 processes, ${CONNECTIONS} connections each), taking turns in alternating order; ${started.toISOString().slice(11, 16)}–${finished.toISOString().slice(11, 16)} UTC, load average ${load0[0]!.toFixed(1)} before, ${load1[0]!.toFixed(1)} after

| 2 API processes, 1 account, 1 key | calls | calls/s | lock-wait samples per 1,000 calls | lock wait ms per call (estimated) | backends waiting per sample | samples (ms apart) | transactions per call | API CPU ms/call | PostgreSQL CPU ms/call |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${row('off')}
${row('on')}
| on / off | | ${ratio((t) => t.calls / t.ms)} | ${ratio((t) => t.waiting / t.calls)} | ${ratio((t) => t.waitMs / t.calls)} | ${ratio((t) => t.waiting / t.samples)} | | ${ratio((t) => t.xacts / t.calls)} | ${ratio((t) => t.api / t.calls)} | ${ratio((t) => t.postgres / t.calls)} |

What the waiting backends waited for (samples):
${modes
  .map(
    (mode) =>
      `- \`CREDIT_LEASE=${mode}\`: ${
        [...totals[mode].what]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ${n}`)
          .join('; ') || 'none'
      }`,
  )
  .join('\n')}

Money after shutdown:
${exact.join('\n')}
`)

await sampler.end()
await Promise.all(children.map(stop))
await bench.db.close()
await bench.stop()
process.exit(0)
