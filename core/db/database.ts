// The database handle every module receives: MikroORM for entities and migrations, `sql()` for the
// statements that move money, and a round-trip counter the benchmark reads.
import { MikroORM } from '@mikro-orm/postgresql'
import { Migrator } from '@mikro-orm/migrations'
import { runMigrations as runWorkerMigrations } from 'graphile-worker'
import pg from 'pg'
import { entities } from './entities.ts'
import { allMigrations, type NamedMigration } from './capability-migrations.ts'
import { isEmbeddedUrl, startEmbeddedPostgres } from './embedded.ts'
import { BootRefusal } from '../config.ts'
import { isContention, serviceUnavailable } from './faults.ts'
import { checkoutLimits, checkoutQueue, type CheckoutLimits } from './checkout-queue.ts'
import { applyRepeatables, pendingRepeatables } from './repeatable.ts'

import type { Query, Row } from '../query.ts'

export type { Query, Row }

export interface Database extends Query {
  readonly url: string
  readonly orm: MikroORM
  /**
   * The same statements with an asynchronous commit: visible to every other transaction at once, on disk
   * within PostgreSQL's wal_writer_delay instead of before the answer. Only for a write a crash may lose
   * whole, with nothing depending on it outside the database: a call's hold (its reservation goes with it,
   * and the durable capture that follows flushes it anyway). Never for a statement that moves money.
   */
  readonly asyncCommit: Query
  /**
   * Runs fn in one transaction; every sql() of the handle it gets joins that transaction. After a deadlock or
   * serialization failure fn runs again (a few times, with jitter), so it must do database work only.
   */
  tx<T>(fn: (q: Query) => Promise<T>): Promise<T>
  roundTrips(): number
  /** Deadlocks and serialization failures the server reported (40P01, 40001), retried or not. */
  contention(): number
  close(): Promise<void>
}

/** DATABASE_URL, or the embedded PostgreSQL in .data/ with its `capapi` database (C15). */
export async function resolveDatabaseUrl(databaseUrl?: string): Promise<{ url: string; embedded: boolean; stop: () => Promise<void> }> {
  if (databaseUrl) return { url: databaseUrl, embedded: isEmbeddedUrl(databaseUrl), stop: async () => {} }
  const embedded = await startEmbeddedPostgres()
  await ensureDatabaseExists(embedded.url('postgres'), 'capapi')
  return { url: embedded.url('capapi'), embedded: true, stop: embedded.stop }
}

export async function ensureDatabaseExists(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name])
    if (!rowCount) {
      await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e // created meanwhile by a sibling process
      })
    }
  } finally {
    await client.end()
  }
}

/**
 * Applies our numbered migrations, graphile-worker's, then the repeatable steps whose text changed (the current
 * text of our SQL functions), serialised across processes by an advisory lock. `to`: only the numbered migrations
 * up to that one, nothing after (a test of a migration on rows of the schema before it).
 */
export async function migrate(url: string, to?: string): Promise<void> {
  const migrations = await allMigrations() // a bad migration file refuses before the database is touched
  const lock = new pg.Client({ connectionString: url })
  await lock.connect()
  try {
    await lock.query('select pg_advisory_lock(7201)')
    const orm = await MikroORM.init(ormOptions(url, 1, migrations))
    try {
      await orm.migrator.up(to === undefined ? undefined : { to })
    } finally {
      await orm.close()
    }
    await runWorkerMigrations({ connectionString: url, logger: quietLogger })
    if (to === undefined) await applyRepeatables(lock)
  } finally {
    await lock.query('select pg_advisory_unlock(7201)').catch(() => {})
    await lock.end()
  }
}

/**
 * For processes started with MIGRATE_ON_BOOT=false (deployments with a separate `--migrate` step): waits until
 * every migration of this build is applied, so replicas never apply or race them; refuses after timeoutMs.
 */
export async function awaitMigrations(url: string, timeoutMs = 120_000): Promise<void> {
  const migrations = await allMigrations()
  const deadline = Date.now() + timeoutMs
  let pending = migrations.length
  for (;;) {
    const orm = await MikroORM.init(ormOptions(url, 1, migrations)).catch(() => null) // server not up yet
    try {
      pending = orm ? (await orm.migrator.getPending()).length : pending
      if (orm && pending === 0) pending = await pendingFunctions(url)
      if (orm && pending === 0) return
    } catch {
      // the migrating process holds the table; ask again
    } finally {
      await orm?.close()
    }
    if (Date.now() > deadline)
      throw new BootRefusal(
        `${pending} database migrations are not applied: run the image with --migrate (MIGRATE_ON_BOOT=false waits for it)`,
      )
    await new Promise((r) => setTimeout(r, 1000))
  }
}

/** Repeatable steps not yet applied: the migrating process applies them last. */
async function pendingFunctions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await pendingRepeatables(client)).length
  } finally {
    await client.end()
  }
}

export async function openDatabase(url: string, poolSize = 10, limits: CheckoutLimits = checkoutLimits(poolSize)): Promise<Database> {
  const orm = await MikroORM.init(ormOptions(url, 2))
  // sql() and tx() go straight to a pg Pool with named prepared statements: the wallet's statements are
  // parsed once per connection and sent as bind/execute only. MikroORM's execute() inlines every value
  // into the text client-side and goes through knex, which cost more CPU than the statement itself.
  // A connection that cannot be made within the timeout is an outage (503), not a request left hanging; a
  // checkout waits its turn in a queue of its own first (checkout-queue.ts), so the timeout times only the making.
  const common = { connectionString: url, max: poolSize, types: rawTimestamps, connectionTimeoutMillis: CONNECT_TIMEOUT_MS }
  const pool = new pg.Pool(common)
  // Its own pool, so the session setting can never reach a statement that must be durable.
  const asyncPool = new pg.Pool({ ...common, options: '-c synchronous_commit=off' })
  for (const p of [pool, asyncPool]) p.on('error', () => {}) // an idle client lost (server restart); the next checkout reconnects
  const [inLine, asyncInLine] = [checkoutQueue(limits), checkoutQueue(limits)]
  let trips = 0
  let contended = 0
  const run = async <T extends Row>(client: pg.Pool | pg.PoolClient, text: string, params: unknown[]): Promise<T[]> => {
    trips++
    try {
      const res = await client.query<T>(prepared(text, params))
      return res.rows
    } catch (e) {
      if (isContention(e)) contended++
      throw e
    }
  }
  return {
    url,
    orm,
    sql: (text, params = []) => retried(() => inLine.run(() => run(pool, text, params))),
    asyncCommit: { sql: (text, params = []) => retried(() => asyncInLine.run(() => run(asyncPool, text, params))) },
    tx: (fn) =>
      retried(() =>
        inLine.run(async () => {
          const client = await pool.connect()
          let broken: unknown
          try {
            trips++
            await client.query('begin')
            const result = await fn({ sql: (text, params = []) => run(client, text, params) })
            trips++
            await client.query('commit')
            return result
          } catch (e) {
            await client.query('rollback').catch((lost: unknown) => {
              broken = lost
            })
            throw e
          } finally {
            client.release(broken as Error | undefined)
          }
        }),
      ),
    roundTrips: () => trips,
    contention: () => contended,
    close: async () => {
      await Promise.all([pool.end(), asyncPool.end()])
      await orm.close()
    },
  }
}

// Timestamps come back as text, as they did through MikroORM (callers parse them where they need Dates).
const rawTimestamps = new pg.TypeOverrides()
for (const oid of [1082, 1114, 1184, 1186]) rawTimestamps.setTypeParser(oid, (text: string) => text)

/** Our statements are written with `?` placeholders; pg wants `$n`. Converted and named once per text. */
const statements = new Map<string, { name: string | undefined; text: string }>()
const MAX_PREPARED = 500

function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let s = statements.get(text)
  if (!s) {
    let n = 0
    let out = ''
    let quoted = false
    for (const ch of text) {
      if (ch === "'") quoted = !quoted
      out += ch === '?' && !quoted ? `$${++n}` : ch
    }
    // Dynamic texts beyond the cap run unnamed rather than growing every connection's statement cache.
    s = { name: statements.size < MAX_PREPARED ? `s${statements.size}` : undefined, text: out }
    statements.set(text, s)
  }
  return { name: s.name, text: s.text, values }
}

function ormOptions(url: string, poolSize: number, migrationsList: NamedMigration[] = []) {
  return {
    clientUrl: url,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: poolSize }, // entities only (accounts, keys); money goes through the pg Pool
    discovery: { warnWhenNoEntities: false },
    migrations: { migrationsList, tableName: 'schema_migrations', transactional: true, silent: true, snapshot: false },
    debug: false,
  }
}

export const quietLogger = new (await import('graphile-worker')).Logger(() => (level: string, message: string) => {
  if (level === 'error') console.error(`[worker] ${message}`)
})

const CONNECT_TIMEOUT_MS = 5000
/** Attempts of a statement or transaction that meets a deadlock or serialization failure (it was rolled back whole). */
const CONTENTION_ATTEMPTS = 4

/**
 * Runs `attempt` again after a deadlock or serialization failure, with a jittered backoff (up to 20, 40, 80 ms),
 * before the last one's failure is the client's 503 service_unavailable; an unreachable database is a 503 at
 * once (the client's retry, with its Retry-After, is the better backoff). Anything else passes through as is.
 */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (e) {
      if (isContention(e) && n < CONTENTION_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** n))
        continue
      }
      const unavailable = serviceUnavailable(e)
      if (unavailable) throw Object.assign(unavailable, { cause: e })
      throw e
    }
  }
}
