// The deployment roles of core/server.ts on a real, empty database: `--migrate` applies the migrations once and
// exits, a process with MIGRATE_ON_BOOT=false waits for them (or refuses in one line), `--maintenance` runs one
// pass and exits. compose.yaml and the Kubernetes manifests rely on exactly this.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import t from 'tap'
import { BootRefusal } from '../../core/config.ts'
import { awaitMigrations, ensureDatabaseExists } from '../../core/db/database.ts'
import { serverUrl, withDatabase } from '../../devkit/database.ts'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const server = (url: string, ...args: string[]) =>
  run(process.execPath, ['core/server.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, SECRET_ENCRYPTION_KEY: 'a'.repeat(64), LOG_LEVEL: 'info', MIGRATE_ON_BOOT: 'false' },
  })

t.test('--migrate once, replicas wait for it, --maintenance runs a pass', async (t) => {
  const admin = await serverUrl()
  const name = `capapi_roles_${randomUUID().slice(0, 8)}`
  await ensureDatabaseExists(admin, name)
  const url = withDatabase(admin, name)
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: admin })
    await c.connect()
    await c.query(`drop database if exists "${name}" with (force)`)
    await c.end()
  })

  const refused = await awaitMigrations(url, 1500).then(
    () => null,
    (e: unknown) => e,
  )
  t.ok(refused instanceof BootRefusal, 'an empty database: a waiting process refuses after its timeout')
  t.match((refused as Error).message, /not applied: run the image with --migrate/, 'and says what to run')

  const waiting = awaitMigrations(url, 60_000)
  const migrated = await server(url, '--migrate')
  t.match(migrated.stdout, /Migrations applied/, '--migrate applies them and exits 0')
  await waiting
  t.pass('the waiting process starts once they are applied')

  const again = await server(url, '--migrate')
  t.match(again.stdout, /Migrations applied/, 'a second --migrate finds nothing to do and exits 0')

  const maintenance = await server(url, '--maintenance')
  t.match(maintenance.stdout, /\[maintenance\] \{.*holdsReleased\\?":0/, '--maintenance prints its report and exits 0')
})
