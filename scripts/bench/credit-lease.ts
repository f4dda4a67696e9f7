// PostgreSQL transactions per live call on one hot account, CREDIT_LEASE off then on, in one run: the real app
// in this process (a 2-credit capability whose handler waits 2 ms), 50 clients on one key, the database's
// committed and rolled-back transactions (pg_stat_database) and PostgreSQL's CPU around each run.
// `npx tsx scripts/bench/credit-lease.ts [calls] [clients]`
import type { AddressInfo } from 'node:net'
import { buildApp, httpServer } from '../../core/app.ts'
import { boot } from '../../core/boot.ts'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/observability/log.ts'
import { mockProvider } from '../../devkit/fake-model.ts'
import { testCapability } from '../../devkit/test-capability.ts'
import { benchAccount, benchDatabase } from './setup.ts'
import { pgCpu, pgDelta, ppidOf } from './proc.ts'

const CALLS = Number(process.argv[2] ?? 3000)
const CLIENTS = Number(process.argv[3] ?? 50)
const PRICE = 2
// pg_stat_database shows a backend's counts once it reports them: at most every second, and 10 s after it went idle.
const STATS_SETTLE_MS = 11_500
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const bench = await benchDatabase('lease')
// Calls per money function (pg_stat_user_functions) for the sessions the app opens.
await bench.db.sql(`select set_config('track_functions', 'pl', false)`)
const [{ db: dbName }] = (await bench.db.sql<{ db: string }>('select current_database() as db')) as [{ db: string }]
await bench.db.sql(`alter database "${dbName}" set track_functions = 'pl'`)
const MONEY = ['reserve_call', 'capture_hold', 'release_hold', 'charge_lease', 'lease_credits', 'settle_lease']
const moneyCalls = async () => {
  const rows = await bench.db.sql<{ funcname: string; calls: string }>(
    `select funcname, calls from pg_stat_user_functions where funcname = any(?)`,
    [MONEY],
  )
  return new Map(rows.map((r) => [r.funcname, Number(r.calls)]))
}
const [me] = await bench.db.sql<{ pid: number }>('select pg_backend_pid() as pid')
const postmaster = ppidOf(me!.pid)
const transactions = async () => {
  const [row] = await bench.db.sql<{ n: string }>(
    `select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`,
  )
  return Number(row!.n)
}
const paid = testCapability({
  name: 'paid',
  price: PRICE,
  ratePerMinute: 1_000_000,
  handler: async () => {
    await sleep(2)
    return { echo: 'billing' }
  },
})

async function run(lease: boolean) {
  const config = { ...loadConfig({ ...process.env, CREDIT_LEASE: lease ? 'on' : 'off' }), databaseUrl: bench.url }
  const booted = await boot(config, {
    provider: mockProvider(),
    capabilities: new Map([[paid.name, paid]]),
    log: () => {},
    logger: createLogger({ level: 'silent' }),
  })
  const server = httpServer(buildApp(booted.services), config).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/paid`
  const account = await benchAccount(bench.db, lease ? 'on' : 'off', 10_000_000)
  const calls = async (n: number) => {
    let left = n
    let ok = 0
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (left-- > 0) {
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json', 'service-cache': 'no-store' },
            body: '{"text":"I was charged twice"}',
          })
          if (res.status === 200) {
            ok++
            await res.arrayBuffer()
          } else console.log(res.status, await res.text())
        }
      }),
    )
    return ok
  }
  await calls(300) // warm-up: keys cached, connections open, the key busy
  await sleep(STATS_SETTLE_MS)
  const idle0 = await transactions()
  await sleep(STATS_SETTLE_MS)
  const x0 = await transactions()
  const f0 = await moneyCalls()
  const idle = x0 - idle0 - 1
  const cpu0 = pgCpu(postmaster)
  const t0 = performance.now()
  const ok = await calls(CALLS)
  const ms = performance.now() - t0
  const cpu = pgDelta(cpu0, pgCpu(postmaster))
  await sleep(STATS_SETTLE_MS)
  const x = (await transactions()) - x0 - 1 - idle
  const f = [...(await moneyCalls())].map(([name, n]) => [name, n - (f0.get(name) ?? 0)] as const).filter(([, n]) => n > 0)
  const money = f.reduce((sum, [, n]) => sum + n, 0)
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  await booted.close() // settles the open blocks
  const [ledger] = await bench.db.sql<{ balance: string; reserved: string; charged: string; charges: string; sum: string }>(
    `select a.balance, a.reserved,
            (select count(*) from ledger l where l.account_id = a.id and l.kind = 'charge') as charges,
            (select -sum(amount) from ledger l where l.account_id = a.id and l.kind = 'charge') as charged,
            (select sum(amount) from ledger l where l.account_id = a.id) as sum
       from accounts a where a.id = ?`,
    [account.accountId],
  )
  const [leases] = await bench.db.sql<{ n: string; open: string }>(
    `select count(*) as n, count(*) filter (where state = 'open') as open from credit_leases where account_id = ?`,
    [account.accountId],
  )
  console.log(
    `CREDIT_LEASE=${lease ? 'on' : 'off'}: ${ok}/${CALLS} × 200 at ${CLIENTS} clients, ` +
      `**${(x / CALLS).toFixed(3)} transactions per call** (${x} in the run; ${idle} per ${STATS_SETTLE_MS / 1000} s idle subtracted), ` +
      `money statements **${(money / CALLS).toFixed(3)} per call** (${f.map(([name, n]) => `${name} ${n}`).join(', ')}), ` +
      `PostgreSQL ${(cpu / CALLS).toFixed(3)} ms CPU per call, ${Math.round(CALLS / (ms / 1000))} calls/s; ` +
      `after: ${ledger!.charges} charges (${CALLS + 300} calls), ${ledger!.charged} credits charged (expected ${(CALLS + 300) * PRICE}), ` +
      `balance ${ledger!.balance} = sum(ledger) ${ledger!.sum}, reserved ${ledger!.reserved}, blocks ${leases!.n} (open ${leases!.open})`,
  )
}

await run(false)
await run(true)
await bench.db.close()
await bench.stop()
process.exit(0)
