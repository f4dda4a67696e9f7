// An API node in its own process that leases credits of one key, charges some calls against the block and keeps
// the rest running, so a test can kill -9 it holding the lease. Prints "ready <lease id>" once it is there.
import { openDatabase } from '../../core/db/database.ts'
import { LeaseBook } from '../../core/wallet/lease.ts'
import { capture } from '../../core/wallet/wallet.ts'

const env = process.env as Record<string, string>
const db = await openDatabase(env.DATABASE_URL!, 2)
const book = new LeaseBook(db, () => new Date(), 300, { busyCallsPerSecond: 1, minCalls: 20 }) // busy from its first call
const calls = Number(env.LEASE_CALLS)
const charged = Number(env.LEASE_CHARGED)
let lease = ''
for (let i = 0; i < calls; i++) {
  const held = await book.hold(
    {
      accountId: env.ACCOUNT_ID!,
      keyId: env.KEY_ID!,
      price: 5,
      endpoint: 'paid',
      requestId: `dead-${i}`,
      holdTtlSeconds: 300,
      now: new Date(),
    },
    true,
  )
  if (held.outcome !== 'ok' || !held.lease) throw new Error(`call ${i} was not leased: ${held.outcome}`)
  lease = held.holdId.split(' ')[1]!
  if (i < charged) await capture(db, held, { call: i }, new Date())
}
process.stdout.write(`ready ${lease}\n`)
setInterval(() => {}, 60_000) // the other calls run until the process is killed
