// A call's hold commits without waiting for the disk (db.asyncCommit); everything that moves money stays
// durable. The hold is still visible at once to the capture, which runs on another connection.
import t from 'tap'
import { addCredits, createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { KeyCache } from '../../core/accounts/key-cache.ts'
import { openDatabase } from '../../core/db/database.ts'
import { capture, reserve } from '../../core/wallet/wallet.ts'
import { createTestDatabase } from '../../devkit/database.ts'

const database = await createTestDatabase()
const db = await openDatabase(database.url, 4)
t.teardown(async () => {
  await db.close()
  await database.drop()
})

const setting = async (q: { sql: typeof db.sql }) => (await q.sql<{ s: string }>(`select current_setting('synchronous_commit') as s`))[0]!.s

t.test('only the asyncCommit handle skips the flush wait', async (t) => {
  t.equal(await setting(db.asyncCommit), 'off')
  t.equal(await setting(db), 'on', 'plain statements (captures, credits) are durable')
  t.equal(await db.tx((q) => setting(q)), 'on', 'transactions are durable')
})

t.test('a hold placed without the flush wait is captured at once from a durable connection', async (t) => {
  const now = new Date()
  const account = await createAccount(db, { email: 'async-commit@example.test' }, now)
  await addCredits(db, account.id, { credits: 100, reason: 'test' }, now)
  const { key } = await createKey(db, account.id, { name: 'k' })
  const caller = (await new KeyCache(db, { now: () => now }).lookup(key))!
  const calls = Array.from({ length: 20 }, async (_, i) => {
    const base = { accountId: account.id, keyId: caller.keyId, price: 10, endpoint: 'classify', requestId: `r${i}`, now: new Date() }
    const held = await reserve(db.asyncCommit, { ...base, holdTtlSeconds: 300 })
    if (held.outcome !== 'ok') return held.outcome
    await capture(db, held, { i }, new Date())
    return 'charged'
  })
  const outcomes = await Promise.all(calls)
  t.equal(outcomes.filter((o) => o === 'charged').length, 10, 'exactly the 100 credits are spent, 10 at a time')
  t.equal(outcomes.filter((o) => o === 'insufficient').length, 10)
  const [row] = await db.sql(`select balance, reserved from accounts where id = ?`, [account.id])
  t.same([Number(row!.balance), Number(row!.reserved)], [0, 0])
})
