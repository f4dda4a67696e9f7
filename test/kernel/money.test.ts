// Money under real concurrency against real PostgreSQL (C4): holds never overdraw, failures are free,
// and balance == sum(ledger) at the end.
import t from 'tap'
import { ApiError } from '../../core/errors.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
let failNext = false
const paid = testCapability({
  name: 'paid',
  price: 5,
  ratePerMinute: 10_000,
  handler: async (input: any) => {
    await sleep(20) // hold every request open long enough to overlap
    if (failNext && input.text === 'fail') throw new ApiError('inference_failed', 'provider down')
    return { echo: input.text }
  },
})
const app = await startTestApp(t, { capabilities: [paid] })

t.test('fund K calls, fire 4K at once: exactly K succeed, the rest are 402', async (t) => {
  const K = 12
  const c = await app.customer(K * 5)
  const results = await Promise.all(
    Array.from({ length: 4 * K }, (_, i) => app.call('/v1/paid', { body: { text: `call ${i}` }, key: c.key })),
  )
  const statuses = results.map((r) => r.status)
  t.equal(statuses.filter((s) => s === 200).length, K, 'K successes')
  t.equal(statuses.filter((s) => s === 402).length, 3 * K, 'the rest are 402')
  t.ok(results.filter((r) => r.status === 402).every((r) => r.body.error.code === 'insufficient_credits'))
  const l = await app.ledger(c.accountId)
  t.equal(l.balance, 0, 'balance ends at 0')
  t.equal(l.reserved, 0, 'no hold left open')
  t.equal(l.balance, l.ledgerSum, 'balance == sum(ledger)')
  t.ok(
    results.filter((r) => r.status === 200).every((r) => r.body.usage.credits === 5 && r.body.usage.balanceRemaining >= 0),
    'usage reports the price and a non-negative available balance',
  )
  const charges = await app.services.db.sql(
    `select balance_after from ledger where account_id = ? and kind = 'charge' order by balance_after`,
    [c.accountId],
  )
  t.same(
    charges.map((r) => Number(r.balance_after)),
    Array.from({ length: K }, (_, i) => i * 5),
    'each capture saw a distinct balance: no lost update',
  )
  const [usage] = await app.services.db.sql(
    `select count(*)::int as n, sum(credits)::int as credits from usage_events where account_id = ?`,
    [c.accountId],
  )
  t.same(usage, { n: K, credits: K * 5 }, 'one usage row per charged call')
})

t.test('a failed call is free and its hold is released, under concurrency', async (t) => {
  failNext = true
  const c = await app.customer(50)
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => app.call('/v1/paid', { body: { text: i % 2 ? 'fail' : `ok ${i}` }, key: c.key })),
  )
  failNext = false
  const ok = results.filter((r) => r.status === 200).length
  const failed = results.filter((r) => r.status === 502).length
  t.equal(ok + failed + results.filter((r) => r.status === 402).length, 20)
  t.ok(failed > 0, 'some calls failed')
  const l = await app.ledger(c.accountId)
  t.equal(l.balance, 50 - ok * 5, 'only successes are charged')
  t.equal(l.reserved, 0)
  t.equal(l.balance, l.ledgerSum)
})

t.test('spend caps hold under concurrency (C9)', async (t) => {
  const c = await app.customer(1000, { plan: 'team', monthlySpendCap: 20 })
  const results = await Promise.all(Array.from({ length: 16 }, (_, i) => app.call('/v1/paid', { body: { text: `c${i}` }, key: c.key })))
  t.equal(results.filter((r) => r.status === 200).length, 4, 'cap 20 at price 5: four calls')
  t.ok(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'spend_cap_reached'))
  const [key] = await app.services.db.sql(`select month_spend, held from api_keys where id = ?`, [c.keyId])
  t.same({ spend: Number(key!.month_spend), held: Number(key!.held) }, { spend: 20, held: 0 })
})

t.test('a hold stranded by a dead process is released by maintenance', async (t) => {
  const c = await app.customer(10)
  const { reserve } = await import('../../core/wallet/wallet.ts')
  const { runMaintenance } = await import('../../core/maintenance.ts')
  const held = await reserve(app.services.db, {
    accountId: c.accountId,
    keyId: c.keyId,
    price: 5,
    endpoint: 'paid',
    requestId: 'req_crashed',
    holdTtlSeconds: 1,
    now: new Date(Date.now() - 10_000),
  })
  t.equal(held.outcome, 'ok')
  t.equal((await app.ledger(c.accountId)).reserved, 5)
  const report = await runMaintenance(app.services)
  t.equal(report.holdsReleased, 1)
  t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
})

t.test("one account's money statements wait their turn in the API, not on its row lock", async (t) => {
  const c = await app.customer(1000)
  // A separate connection watches for backends of this database waiting on a lock (the account's row).
  const pg = (await import('pg')).default
  const watcher = new pg.Client({ connectionString: app.services.db.url })
  await watcher.connect()
  t.teardown(() => watcher.end())
  let waiting = 0
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await watcher.query(
        `select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
          where not l.granted and a.datname = current_database()`,
      )
      waiting = Math.max(waiting, rows[0].n)
    }
  })()
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => app.call('/v1/paid', { body: { text: `t${i}` }, key: c.key })))
  sampling = false
  await sampler
  t.equal(results.filter((r) => r.status === 200).length, 40, 'every call served')
  t.equal(waiting, 0, 'no statement of this process ever waited for a lock in PostgreSQL')
  t.same(await app.ledger(c.accountId), { balance: 1000 - 40 * 5, reserved: 0, ledgerSum: 1000 - 40 * 5 })
})

t.test('inAccountTurn: one statement of an account at a time, other accounts meanwhile, a failure passes on', async (t) => {
  const { inAccountTurn } = await import('../../core/wallet/wallet.ts')
  const running = new Map<string, number>()
  let most = 0
  const order: string[] = []
  const statement =
    (account: string, name: string, fail = false) =>
    async () => {
      running.set(account, (running.get(account) ?? 0) + 1)
      most = Math.max(most, running.get(account)!)
      order.push(`${name} start`)
      await sleep(5)
      running.set(account, running.get(account)! - 1)
      order.push(`${name} end`)
      if (fail) throw new Error(`${name} failed`)
      return name
    }
  const outcomes = await Promise.allSettled([
    inAccountTurn('a', statement('a', 'a1')),
    inAccountTurn('a', statement('a', 'a2', true)),
    inAccountTurn('b', statement('b', 'b1')),
    inAccountTurn('a', statement('a', 'a3')),
  ])
  t.same(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
    ['a1', 'a2 failed', 'b1', 'a3'],
    'each caller gets its own result or error',
  )
  t.equal(most, 1, 'never two statements of one account at once')
  t.ok(order.indexOf('b1 start') < order.indexOf('a1 end'), "another account's statement does not wait")
  t.same(
    order.filter((e) => e.startsWith('a')),
    ['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end'],
    'in arrival order, and a failure does not stop the lane',
  )
})
