// C9 across instances (issue 32): every instance caches keys by hash; a revocation on one is honoured by the
// others within REVOCATION_MS (PostgreSQL LISTEN/NOTIFY, migration 0013), and still when the listener is lost.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { revokeKey } from '../../core/accounts/keys.ts'
import { REVOCATION_MS } from '../../core/accounts/key-cache.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { createTestDatabase } from '../../devkit/database.ts'

const echo = testCapability({ name: 'echo', ratePerMinute: 1000 })
const database = await createTestDatabase()
const a = await startTestApp(t, { capabilities: [echo], databaseUrl: database.url })
const b = await startTestApp(t, { capabilities: [echo], databaseUrl: database.url })
t.teardown(database.drop)
const body = { text: 'hi' }
const call = (app: typeof a, key: string) => app.call('/v1/echo', { body, key }).then((r) => r.status)

t.test('a key revoked on one instance is refused by another within REVOCATION_MS', async (t) => {
  const c = await a.customer(100)
  t.equal(await call(b, c.key), 200, 'cached on b')
  await sleep(REVOCATION_MS * 1.5) // b's entry is now older than REVOCATION_MS: only the listener vouches for it
  t.equal(await call(b, c.key), 200, 'still served by b')
  await revokeKey(a.services.db, c.keyId, a.services.keys, a.services.now())
  t.equal(await call(a, c.key), 401, 'refused at once where it was revoked')
  await sleep(REVOCATION_MS)
  t.equal(await call(b, c.key), 401, 'refused by the other instance')
  await a.expectLedger(t, c.accountId, 90) // two calls of 5; the refused ones free
})

t.test('a revocation by plain SQL reaches every instance too', async (t) => {
  const c = await a.customer(100)
  t.equal(await call(a, c.key), 200)
  t.equal(await call(b, c.key), 200)
  await a.services.db.sql(`update api_keys set revoked_at = now() where id = ?`, [c.keyId])
  await sleep(REVOCATION_MS)
  t.equal(await call(a, c.key), 401)
  t.equal(await call(b, c.key), 401)
})

t.test('an entry outlives REVOCATION_MS only while the listener is current', async (t) => {
  const c = await a.customer(100)
  t.equal(await call(b, c.key), 200, 'cached on b')
  // Revoked without the notification (as if it were lost): b goes on serving its entry while its listener is current …
  await a.services.db.sql(`alter table api_keys disable trigger api_key_revoked`)
  t.teardown(() => a.services.db.sql(`alter table api_keys enable trigger api_key_revoked`))
  await a.services.db.sql(`update api_keys set revoked_at = now() where id = ?`, [c.keyId])
  await sleep(REVOCATION_MS * 1.5)
  t.equal(await call(b, c.key), 200, 'served from the cache, no lookup per call')
  // … and not once the listener is lost: its entries fall back to REVOCATION_MS.
  const [killed] = await a.services.db.sql<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where application_name = 'key-revocations' and datname = current_database()`,
  )
  t.equal(killed!.n, 2, 'both instances listened')
  await sleep(REVOCATION_MS)
  t.equal(await call(b, c.key), 401, 'refused once the listener that vouched for the entry is gone')
  // The listeners come back by themselves.
  let back = 0
  for (let waited = 0; waited < 10_000 && back < 2; waited += 100) {
    await sleep(100)
    const [row] = await a.services.db.sql<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where application_name = 'key-revocations' and datname = current_database()`,
    )
    back = row!.n
  }
  t.equal(back, 2, 'both listeners reconnected')
})
