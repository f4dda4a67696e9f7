// The database handle every module receives: MikroORM for entities and migrations, `sql()` for the
// statements that move money, and a round-trip counter the benchmark reads.
import { DefaultLogger, MikroORM, type LoggerOptions, type Transaction } from '@mikro-orm/postgresql'
import { Migrator } from '@mikro-orm/migrations'
import { runMigrations as runWorkerMigrations } from 'graphile-worker'
import pg from 'pg'
import { entities } from './entities.ts'
import { migrations } from './migrations/index.ts'
import { startEmbeddedPostgres } from './embedded.ts'

export type Row = Record<string, any>

export interface Query {
  sql<T extends Row = Row>(text: string, params?: unknown[]): Promise<T[]>
}

export interface Database extends Query {
  readonly url: string
  readonly orm: MikroORM
  /** Runs fn in one transaction; every sql() of the handle it gets joins that transaction. */
  tx<T>(fn: (q: Query & { ctx: Transaction }) => Promise<T>): Promise<T>
  roundTrips(): number
  close(): Promise<void>
}

/** DATABASE_URL, or the embedded PostgreSQL in .data/ with its `capapi` database (C15). */
export async function resolveDatabaseUrl(databaseUrl?: string): Promise<{ url: string; stop: () => Promise<void> }> {
  if (databaseUrl) return { url: databaseUrl, stop: async () => {} }
  const embedded = await startEmbeddedPostgres()
  await ensureDatabaseExists(embedded.url('postgres'), 'capapi')
  return { url: embedded.url('capapi'), stop: embedded.stop }
}

export async function ensureDatabaseExists(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name])
    if (!rowCount) {
      await client
        .query(`create database "${name}"${template ? ` template "${template}"` : ''}`)
        .catch((e: { code?: string }) => {
          if (e.code !== '42P04') throw e // created meanwhile by a sibling process
        })
    }
  } finally {
    await client.end()
  }
}

/** Applies our migrations and graphile-worker's, serialised across processes by an advisory lock. */
export async function migrate(url: string): Promise<void> {
  const lock = new pg.Client({ connectionString: url })
  await lock.connect()
  try {
    await lock.query('select pg_advisory_lock(7201)')
    const orm = await MikroORM.init(ormOptions(url, 1))
    try {
      await orm.migrator.up()
    } finally {
      await orm.close()
    }
    await runWorkerMigrations({ connectionString: url, logger: quietLogger })
  } finally {
    await lock.query('select pg_advisory_unlock(7201)').catch(() => {})
    await lock.end()
  }
}

export async function openDatabase(url: string, poolSize = 10): Promise<Database> {
  let trips = 0
  // MikroORM 7 runs on Kysely (no knex 'query' event): its logger sees every statement, BEGIN and COMMIT included.
  const loggerFactory = (options: LoggerOptions) =>
    new (class extends DefaultLogger {
      override logQuery(context: Parameters<DefaultLogger['logQuery']>[0]) {
        trips++
        super.logQuery(context)
      }
    })(options)
  const orm = await MikroORM.init({ ...ormOptions(url, poolSize), loggerFactory })
  const connection = orm.em.getConnection()
  const sql = <T extends Row>(text: string, params: unknown[] = [], ctx?: Transaction) =>
    connection.execute<T[]>(text, params, 'all', ctx)
  return {
    url,
    orm,
    sql: (text, params) => sql(text, params),
    tx: (fn) =>
      orm.em.fork().transactional(async (em) => {
        const ctx = em.getTransactionContext() as Transaction
        return fn({ ctx, sql: (text, params) => sql(text, params, ctx) })
      }),
    roundTrips: () => trips,
    close: () => orm.close(),
  }
}

function ormOptions(url: string, poolSize: number) {
  return {
    clientUrl: url,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: poolSize },
    discovery: { warnWhenNoEntities: false },
    migrations: { migrationsList: migrations, tableName: 'schema_migrations', transactional: true, silent: true },
    debug: false,
  }
}

export const quietLogger = new (await import('graphile-worker')).Logger(() => (level: string, message: string) => {
  if (level === 'error') console.error(`[worker] ${message}`)
})
