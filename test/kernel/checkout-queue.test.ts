// Under a burst, a statement waits its turn for one of the pool's connections; that wait is not an outage. Only
// a wait beyond its own bound, or a line too long, is refused, as 503 "busy" with Retry-After; a database that
// cannot be reached stays the fast 503 the outage test measures.
import t from 'tap'
import { openDatabase } from '../../core/db/database.ts'
import { ApiError } from '../../core/errors.ts'
import { createTestDatabase } from '../../devkit/database.ts'

const database = await createTestDatabase()
t.teardown(() => database.drop())

const sleep = (q: { sql: (text: string) => Promise<unknown> }, seconds: number) => q.sql(`select pg_sleep(${seconds})`)
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'served',
    (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code} retry-after=${e.headers?.['Retry-After']}` : String(e)),
  )

t.test('statements queued longer than the connect timeout (5 s) behind one connection are all served', async (t) => {
  const db = await openDatabase(database.url, 1)
  t.teardown(() => db.close())
  const started = Date.now()
  // Twelve half-second statements on one connection: the last waits about 5.5 s in line.
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => outcome(i % 2 ? sleep(db, 0.5) : db.tx((q) => sleep(q, 0.5)))))
  t.same(new Set(results), new Set(['served']))
  t.ok(Date.now() - started >= 5500, 'the line was longer than the connect timeout')
})

t.test('a line longer than its bound is refused at once as busy, and the admitted ones are served', async (t) => {
  const db = await openDatabase(database.url, 1, { slots: 1, maxWaiting: 2, maxWaitMs: 30_000 })
  t.teardown(() => db.close())
  const results = await Promise.all(Array.from({ length: 5 }, () => outcome(sleep(db, 0.2))))
  t.same(results.filter((r) => r === 'served').length, 3, 'one running and two waiting')
  t.same(
    results.filter((r) => r !== 'served'),
    ['503 service_unavailable retry-after=1', '503 service_unavailable retry-after=1'],
  )
})

t.test('a statement that waits in line beyond its time is refused as busy, and the line moves on', async (t) => {
  const db = await openDatabase(database.url, 1, { slots: 1, maxWaiting: 10, maxWaitMs: 200 })
  t.teardown(() => db.close())
  const results = await Promise.all([outcome(sleep(db, 0.5)), outcome(sleep(db, 0)), outcome(sleep(db, 0))])
  t.same(results, ['served', '503 service_unavailable retry-after=1', '503 service_unavailable retry-after=1'])
  t.equal(await outcome(sleep(db, 0)), 'served', 'the slot was handed back')
})
