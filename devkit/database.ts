// Each test file gets its own database, copied from a migrated template: tests never see each other's
// rows or jobs. DATABASE_URL names the server (scripts/test.ts points it at the embedded one when unset).
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { migrate, ensureDatabaseExists, resolveDatabaseUrl } from '../core/db/database.ts'

export const TEMPLATE = 'capapi_test_template'

export function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

/** Creates (once) and migrates the template database. Run by scripts/test.ts before tap starts. */
export async function prepareTemplate(serverUrl: string): Promise<void> {
  const admin = withDatabase(serverUrl, 'postgres')
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  try {
    await client.query('select pg_advisory_lock(7202)')
    await ensureDatabaseExists(admin, TEMPLATE)
    await migrate(withDatabase(serverUrl, TEMPLATE))
  } finally {
    await client.end()
  }
}

export async function serverUrl(): Promise<string> {
  return (await resolveDatabaseUrl(process.env.DATABASE_URL)).url
}

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = await serverUrl()
  if (!process.env.CAPAPI_TEMPLATE_READY) await prepareTemplate(server)
  const name = `capapi_t_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = withDatabase(server, 'postgres')
  for (let attempt = 0; ; attempt++) {
    try {
      await ensureDatabaseExists(admin, name, TEMPLATE)
      break
    } catch (e) {
      // Two files copying the template at the same instant: PostgreSQL refuses one; try again.
      if ((e as { code?: string }).code !== '55006' || attempt > 20) throw e
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200))
    }
  }
  return {
    url: withDatabase(server, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: admin })
      await client.connect()
      await client.query(`drop database if exists "${name}" with (force)`).finally(() => client.end())
    },
  }
}
