// PostgreSQL's share of a live call, without HTTP: the hold (reserve_call, asynchronous commit) and the capture
// (capture_hold, durable) as the API sends them, sequential pairs then pairs on C connections over one account.
// CPU per pair read from /proc for every PostgreSQL process. `npx tsx scripts/bench/wallet-sql.ts [pairs] [C]`
// WALLET_FLOOR=1 sends two `select 1` instead: the round trips alone.
// WALLET_SQL=<file> runs that SQL in the scratch database first (to try another definition of the functions).
import { readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { addCredits, createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl } from '../../core/db/database.ts'
import { capture, inAccountTurn, reserve } from '../../core/wallet/wallet.ts'
import { withDatabase } from '../../devkit/database.ts'
import { pgCpu, pgDelta, ppidOf } from './proc.ts'

const PAIRS = Number(process.argv[2] ?? 2000)
const C = Number(process.argv[3] ?? 8)
const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const name = `capapi_walletsql_${Date.now()}`
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), name)
const url = withDatabase(server.url, name)
await migrate(url)
const db = await openDatabase(url, C + 2)
// Statements separated by a line holding only `--` (a prepared statement takes one command).
if (process.env.WALLET_SQL) for (const s of readFileSync(process.env.WALLET_SQL, 'utf8').split(/;\s*\n--\n/)) await db.sql(s)
const [me] = await db.sql<{ pid: number }>('select pg_backend_pid() as pid')
const pm = ppidOf(me!.pid)
const a = await createAccount(db, { email: `w-${Date.now()}@example.test` }, new Date())
await addCredits(db, a.id, { credits: 1_000_000_000, reason: 'bench' }, new Date())
const keyId = (await createKey(db, a.id, { name: 'bench' })).id

async function pair(inTurn: <T>(statement: () => Promise<T>) => Promise<T>) {
  if (process.env.WALLET_FLOOR) {
    // the floor: the same two round trips doing nothing (an asynchronous and a durable no-op)
    await db.asyncCommit.sql('select 1')
    await db.sql('select 1')
    return
  }
  const held = await inTurn(() =>
    reserve(db.asyncCommit, {
      accountId: a.id,
      keyId,
      price: 2,
      endpoint: 'classify',
      requestId: randomUUID(),
      holdTtlSeconds: 300,
      now: new Date(),
    }),
  )
  if (held.outcome !== 'ok') throw new Error(held.outcome)
  await inTurn(() => capture(db, held, { label: 'billing', confidence: 0.9 }, new Date()))
}
const direct = <T>(statement: () => Promise<T>) => statement()
const queued = <T>(statement: () => Promise<T>) => inAccountTurn(a.id, statement)
async function run(n: number, c: number, inTurn: typeof direct) {
  let left = n
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (left-- > 0) await pair(inTurn)
    }),
  )
}
await run(300, 1, direct)
const runs = [
  ['sequential', 1, direct],
  [`${C} at once, one account, waiting on its row lock`, C, direct],
  [`${C} at once, one account, in turn (inAccountTurn, as the API sends them)`, C, queued],
] as const
for (const [label, c, inTurn] of runs) {
  const cpu0 = pgCpu(pm)
  const t0 = performance.now()
  await run(PAIRS, c, inTurn)
  const ms = performance.now() - t0
  console.log(
    `${label}: PostgreSQL ${(pgDelta(cpu0, pgCpu(pm)) / PAIRS).toFixed(3)} ms CPU per pair, ${(ms / PAIRS).toFixed(3)} ms wall per pair, ${Math.round(PAIRS / (ms / 1000))} pairs/s`,
  )
}
const [sum] = await db.sql<{ n: string; credits: string }>(
  `select count(*) as n, -sum(amount) as credits from ledger where account_id = ? and kind = 'charge'`,
  [a.id],
)
console.log(`charges ${sum!.n}, credits ${sum!.credits} (expected ${2 * (PAIRS * runs.length + 300)} credits)`)
await db.close()
await ensureDatabaseDropped(name)
process.exit(0)

async function ensureDatabaseDropped(database: string) {
  const admin = await openDatabase(withDatabase(server.url, 'postgres'), 1)
  await admin.sql(`drop database ${database}`)
  await admin.close()
}
