// The database handle's round-trip counter, which `npm run bench` reports per live call (MikroORM 7 counts
// through its logger: every statement, BEGIN and COMMIT included).
import t from 'tap'
import { openDatabase } from '../../core/db/database.ts'
import { createTestDatabase } from '../helpers/database.ts'

const database = await createTestDatabase()
const db = await openDatabase(database.url, 2)
t.teardown(async () => {
  await db.close()
  await database.drop()
})

t.test('one round trip per statement; a transaction adds BEGIN and COMMIT', async (t) => {
  await db.sql('select 1') // the first statement also opens the connection
  let before = db.roundTrips()
  t.same(await db.sql('select ?::int as n', [1]), [{ n: 1 }])
  t.equal(db.roundTrips() - before, 1, 'a plain statement')
  before = db.roundTrips()
  await db.tx(async (q) => {
    await q.sql('select 1')
    await q.sql('select 2')
  })
  t.equal(db.roundTrips() - before, 4, 'BEGIN, two statements, COMMIT')
})
