// An empty database of its own for a test that migrates it itself (a migration run on rows it already holds),
// dropped when the test ends.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { ensureDatabaseExists } from '../../core/db/database.ts'
import { serverUrl, withDatabase } from '../../devkit/database.ts'

export async function scratchDatabase(t: { teardown: (fn: () => Promise<void>) => void }, prefix = 'capapi_records'): Promise<string> {
  const server = await serverUrl()
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  await ensureDatabaseExists(withDatabase(server, 'postgres'), name)
  t.teardown(async () => {
    const admin = new pg.Client({ connectionString: withDatabase(server, 'postgres') })
    await admin.connect()
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  })
  return withDatabase(server, name)
}
