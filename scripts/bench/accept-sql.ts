// PostgreSQL's share of an async acceptance against a sync call's two money statements, without HTTP, one
// statement at a time (issue 32). CPU per call read from /proc for every PostgreSQL process (the embedded server:
// ours alone). `npx tsx scripts/bench/accept-sql.ts [calls]`
import { randomUUID } from 'node:crypto'
import { addCredits, createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl } from '../../core/db/database.ts'
import { acceptJob } from '../../core/jobs/accept.ts'
import type { Services } from '../../core/services.ts'
import { capture, reserve } from '../../core/wallet/wallet.ts'
import { withDatabase } from '../../devkit/database.ts'
import { pgCpu, pgDelta, ppidOf } from './proc.ts'

const N = Number(process.argv[2] ?? 1000)
const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
const name = `capapi_acceptsql_${Date.now()}`
await ensureDatabaseExists(withDatabase(server.url, 'postgres'), name)
const url = withDatabase(server.url, name)
await migrate(url)
const db = await openDatabase(url, 4)
const [me] = await db.sql<{ pid: number }>('select pg_backend_pid() as pid')
const pm = ppidOf(me!.pid)
const a = await createAccount(db, { email: `a-${Date.now()}@example.test` }, new Date())
await addCredits(db, a.id, { credits: 1_000_000_000, reason: 'bench' }, new Date())
const keyId = (await createKey(db, a.id, { name: 'bench' })).id
const services = { db } as unknown as Services
const input = { text: 'Invoice 42 from ACME, total 10.00' }

const kinds: Record<string, () => Promise<unknown>> = {
  'sync: hold (asynchronous commit) + capture (durable)': async () => {
    const held = await reserve(db.asyncCommit, {
      accountId: a.id,
      keyId,
      price: 10,
      endpoint: 'parse',
      requestId: randomUUID(),
      holdTtlSeconds: 300,
      now: new Date(),
    })
    if (held.outcome !== 'ok') throw new Error(held.outcome)
    await capture(db, held, { docType: 'invoice' }, new Date())
  },
  'async: accept_job, durable': async () => {
    const r = await acceptJob(services, {
      accountId: a.id,
      keyId,
      price: 10,
      endpoint: 'parse',
      requestId: randomUUID(),
      now: new Date(),
      input,
      callbackUrl: null,
    })
    if (r.outcome !== 'accepted') throw new Error(r.outcome)
  },
  'graphile_worker.add_job alone (durable)': () =>
    db.sql(`select graphile_worker.add_job('bench-noop', json_build_object('jobId', ?::text), max_attempts => 1)`, [randomUUID()]),
  'select 1 (durable no-op)': () => db.sql('select 1'),
}
for (const f of Object.values(kinds)) for (let i = 0; i < 100; i++) await f() // warm-up: plans, caches
for (let round = 0; round < 2; round++)
  for (const [label, f] of Object.entries(kinds)) {
    const cpu0 = pgCpu(pm)
    const t0 = performance.now()
    for (let i = 0; i < N; i++) await f()
    const ms = performance.now() - t0
    console.log(`${label}: PostgreSQL ${(pgDelta(cpu0, pgCpu(pm)) / N).toFixed(3)} ms CPU per call, ${(ms / N).toFixed(3)} ms wall`)
  }
await db.close()
const admin = await openDatabase(withDatabase(server.url, 'postgres'), 1)
await admin.sql(`drop database ${name}`)
await admin.close()
await server.stop()
process.exit(0)
