// What every bench starts from: a fresh migrated database on the configured server (DATABASE_URL, else the
// embedded one, which `stop()` stops again), and an account with credits and one live key.
import { addCredits, createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { ensureDatabaseExists, migrate, openDatabase, resolveDatabaseUrl, type Database } from '../../core/db/database.ts'
import { withDatabase } from '../../devkit/database.ts'

export interface BenchDatabase {
  url: string
  db: Database
  /** Stops the embedded server if this run started it. */
  stop(): Promise<void>
}

export async function benchDatabase(name: string, poolSize = 2): Promise<BenchDatabase> {
  const server = await resolveDatabaseUrl(process.env.DATABASE_URL)
  const dbName = `capapi_bench_${name}_${Date.now()}`
  await ensureDatabaseExists(withDatabase(server.url, 'postgres'), dbName)
  const url = withDatabase(server.url, dbName)
  await migrate(url)
  return { url, db: await openDatabase(url, poolSize), stop: () => server.stop() }
}

export async function benchAccount(db: Database, name: string, credits: number): Promise<{ accountId: string; key: string }> {
  const account = await createAccount(db, { email: `bench-${name}-${Date.now()}@example.test` }, new Date())
  await addCredits(db, account.id, { credits, reason: 'bench' }, new Date())
  return { accountId: account.id, key: (await createKey(db, account.id, { name: 'bench' })).key }
}
