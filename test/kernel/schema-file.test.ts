// core/db/schema.sql is the schema a reader trusts without replaying migrations: it must be what the migrations
// make. When this fails after a migration was added or changed, run `npm run db:schema` and commit the file.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { SCHEMA_FILE, describeSchema } from '../../scripts/db-schema.ts'
import { TEMPLATE, serverUrl, withDatabase } from '../../devkit/database.ts'

t.test('core/db/schema.sql is the schema the migrations make', async (t) => {
  const actual = await describeSchema(withDatabase(await serverUrl(), TEMPLATE))
  t.equal(readFileSync(SCHEMA_FILE, 'utf8'), actual, 'core/db/schema.sql is stale: run `npm run db:schema`')
  t.match(actual, /FUNCTION public\.reserve_call\(/, 'the money functions are in it')
})
