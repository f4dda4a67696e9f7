// Credit leases (CREDIT_LEASE=on) against real PostgreSQL under real concurrency: the database itself refuses a
// charge past a block or a credit charged twice; a node killed holding a block loses nothing and charges nothing
// twice once maintenance settles it; a drained account answers 402 only after its open blocks are recalled.
import t from 'tap'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { spawnReady } from '../helpers/spawn-worker.ts'
import { BootRefusal, loadConfig } from '../../core/config.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { ChargeRefused, LeaseBook } from '../../core/wallet/lease.ts'
import { capture, release } from '../../core/wallet/wallet.ts'

const PRICE = 5
const paid = testCapability({
  name: 'paid',
  price: PRICE,
  ratePerMinute: 100_000,
  handler: async (input: any) => {
    await new Promise((r) => setTimeout(r, 5))
    return { echo: input.text }
  },
})
const later = testCapability({ name: 'later', price: PRICE, async: true, ratePerMinute: 100_000 })
let clock = Date.now()
const app = await startTestApp(t, { capabilities: [paid, later], env: { CREDIT_LEASE: 'on' }, now: () => new Date(clock) })
const db = app.services.db

type Lease = { lease_id: string; lo: string; hi: string; available_after: string }
const lease = async (accountId: string, keyId: string, node = 'test-node') =>
  (
    await db.sql<Lease>(`select * from lease_credits(?, ?, ?, ?, '300 seconds', ?, 20)`, [accountId, keyId, node, PRICE, new Date(clock)])
  )[0]
const charge = (l: Lease, from: number, price = PRICE) =>
  db
    .sql(`select * from charge_lease(?, ?, ?, ?, ?, 'paid', ?, null, '{}', ?)`, [
      l.lease_id,
      l.lo,
      l.hi,
      from,
      price,
      `r${from}`,
      new Date(clock),
    ])
    .then(
      () => 'charged',
      (e: { code?: string }) => e.code ?? 'error',
    )
const settle = (id: string) => db.sql(`select * from settle_lease(?, '[]', '300 seconds', ?)`, [id, new Date(clock)])
const state = async (accountId: string, keyId: string) => {
  const [row] = await db.sql(
    `select a.balance, a.reserved, k.held, k.month_spend,
            (select coalesce(sum(amount), 0) from ledger l where l.account_id = a.id) as ledger_sum,
            (select count(*) from usage_events u where u.account_id = a.id) as usage_rows,
            (select coalesce(sum(credits), 0) from usage_events u where u.account_id = a.id) as usage_credits,
            (select count(*) from credit_leases c where c.account_id = a.id and c.state = 'open') as open_leases
       from accounts a join api_keys k on k.account_id = a.id where a.id = ? and k.id = ?`,
    [accountId, keyId],
  )
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]))
}

t.test('PostgreSQL refuses concurrent charges past the block and a credit charged twice', async (t) => {
  const c = await app.customer(100_000)
  const l = (await lease(c.accountId, c.keyId))!
  const lo = Number(l.lo)
  const hi = Number(l.hi)
  t.equal(hi - lo, 1000, 'the block: the least of 1000 credits and 5 % of the balance')
  t.match(await state(c.accountId, c.keyId), { balance: 100_000, reserved: 1000, held: 1000, open_leases: 1 })
  // Every slice of the block twice (as two nodes that believe the same offset is theirs), and slices past its end.
  const slices = Array.from({ length: (hi - lo) / PRICE }, (_, i) => lo + i * PRICE)
  const attempts = [...slices, ...slices, hi - 2, hi, hi + PRICE, lo - PRICE].sort(() => Math.random() - 0.5)
  const outcomes = await Promise.all(attempts.map((from) => charge(l, from)))
  const count = (o: string) => outcomes.filter((x) => x === o).length
  t.equal(count('charged'), slices.length, 'each slice charged exactly once')
  t.equal(count('23P01'), slices.length, 'the second charge of a slice: exclusion constraint')
  t.equal(count('23514'), 4, 'past either end of the block: check constraint')
  t.equal(await charge(l, lo + 2), '23P01', 'a range overlapping charged credits is refused too')

  await settle(l.lease_id)
  t.same(await state(c.accountId, c.keyId), {
    balance: 99_000,
    reserved: 0,
    held: 0,
    month_spend: 1000,
    ledger_sum: 99_000,
    usage_rows: 200,
    usage_credits: 1000,
    open_leases: 0,
  })
})

t.test('a settled block fences what was not charged: a late charge is refused, settling twice changes nothing', async (t) => {
  const c = await app.customer(10_000)
  const l = (await lease(c.accountId, c.keyId))!
  const lo = Number(l.lo)
  t.equal(Number(l.hi) - lo, 500, '5 % of 10,000')
  t.same(await Promise.all([0, 1, 3].map((i) => charge(l, lo + i * PRICE))), ['charged', 'charged', 'charged'])
  await Promise.all([settle(l.lease_id), settle(l.lease_id)])
  t.equal(await charge(l, lo + 2 * PRICE), '23P01', 'the gap between charges was fenced')
  t.equal(await charge(l, lo + 10 * PRICE), '23P01', 'the rest of the block was fenced')
  await settle(l.lease_id)
  t.same(await state(c.accountId, c.keyId), {
    balance: 10_000 - 15,
    reserved: 0,
    held: 0,
    month_spend: 15,
    ledger_sum: 10_000 - 15,
    usage_rows: 3,
    usage_credits: 15,
    open_leases: 0,
  })
})

t.test('no block for an account or a key too poor for 20 calls: they are served hold by hold', async (t) => {
  const poor = await app.customer(1999)
  t.equal(await lease(poor.accountId, poor.keyId), undefined, '5 % of 1,999 is under 20 calls of 5')
  const capped = await app.customer(100_000, { plan: 'team', monthlySpendCap: 99 })
  t.equal(await lease(capped.accountId, capped.keyId), undefined, 'a cap headroom of 99 is under 20 calls of 5')
  const rich = await app.customer(100_000, { plan: 'team', monthlySpendCap: 300 })
  const l = (await lease(rich.accountId, rich.keyId))!
  t.equal(Number(l.hi) - Number(l.lo), 300, 'the block stops at the key’s cap headroom')
  await settle(l.lease_id)
})

t.test('a node killed holding a block: settled by maintenance at expiry, nothing lost, nothing charged twice', async (t) => {
  const c = await app.customer(100_000)
  const node = await spawnReady(t, 'test/helpers/lease-node.ts', {
    DATABASE_URL: app.services.config.databaseUrl!,
    ACCOUNT_ID: c.accountId,
    KEY_ID: c.keyId,
    LEASE_CALLS: '12',
    LEASE_CHARGED: '7',
  })
  node.child.kill('SIGKILL')
  await new Promise((r) => node.child.once('exit', r))
  const leaseId = node.said
  t.match(await state(c.accountId, c.keyId), { balance: 100_000, reserved: 1000, held: 1000, open_leases: 1 }, 'the block is stranded')

  const before = await runMaintenance(app.services)
  t.equal(before.leasesSettled, 0, 'not before its expiry')
  const started = clock
  clock = Date.now() + 301_000 // past the expiry the node gave its block
  const report = await runMaintenance(app.services)
  clock = started
  t.equal(report.leasesSettled, 1, 'maintenance settles it at expiry')
  t.same(await state(c.accountId, c.keyId), {
    balance: 100_000 - 7 * PRICE,
    reserved: 0,
    held: 0,
    month_spend: 7 * PRICE,
    ledger_sum: 100_000 - 7 * PRICE,
    usage_rows: 7,
    usage_credits: 7 * PRICE,
    open_leases: 0,
  })
  const [l] = await db.sql<Lease>(`select id as lease_id, lo, hi, available_after from credit_leases where id = ?`, [leaseId])
  t.equal(await charge(l!, Number(l!.lo) + 8 * PRICE), '23P01', 'a charge of a call the dead node had running is refused')
  t.equal(await charge(l!, Number(l!.lo) + 3 * PRICE), '23P01', 'and a charge made twice')
  const [charges] = await db.sql(
    `select count(*)::int as n, count(distinct reference)::int as calls from ledger where account_id = ? and kind = 'charge'`,
    [c.accountId],
  )
  t.same(charges, { n: 7, calls: 7 }, 'each charged call once')
  const [rows] = await db.sql(`select count(*)::int as n from lease_charges where lease_id = ?`, [leaseId])
  t.equal(rows!.n, 1, 'the settled block keeps one row: its fence')
  t.equal((await runMaintenance(app.services)).leasesSettled, 0, 'settled once')
})

t.test('a drained account with open blocks answers 402 only after recalling them', async (t) => {
  const credits = 4000
  const calls = credits / PRICE
  const c = await app.customer(credits)
  // Another node's block with one of its calls still running.
  const other = new LeaseBook(db, () => new Date(clock), 300, { busyCallsPerSecond: 1, minCalls: 20 })
  const running = await other.hold(
    {
      accountId: c.accountId,
      keyId: c.keyId,
      price: PRICE,
      endpoint: 'paid',
      requestId: 'other-node',
      holdTtlSeconds: 300,
      now: new Date(clock),
    },
    true,
  )
  t.ok(running.outcome === 'ok' && running.lease, 'the other node holds a block')
  t.match(await state(c.accountId, c.keyId), { reserved: 200, open_leases: 1 })

  const statuses: number[] = []
  const openAt402: number[] = []
  let next = 0
  const client = async () => {
    while (next < calls + 200) {
      const i = next++
      const r = await app.call('/v1/paid', { body: { text: `call ${i}` }, key: c.key })
      statuses.push(r.status)
      if (r.status === 402) openAt402.push((await state(c.accountId, c.keyId)).open_leases!)
    }
  }
  await Promise.all(Array.from({ length: 40 }, client))
  t.equal(statuses.filter((s) => s === 200).length, calls, 'every credit was spent: no 402 while a block held credits')
  t.equal(statuses.filter((s) => s === 402).length, 200, 'the rest are 402')
  t.ok(
    openAt402.every((n) => n === 0),
    'no block open when a 402 was answered',
  )
  const [leased] = await db.sql(`select count(*)::int as n from credit_leases where account_id = ? and node <> ?`, [
    c.accountId,
    other.node,
  ])
  t.ok(leased!.n >= 1, 'this node leased too')

  // The other node's running call ends: its block was settled under it, and the account has nothing left.
  const late = await capture(db, running.outcome === 'ok' ? running : (undefined as never), { late: true }, new Date(clock)).catch(
    (e: unknown) => e,
  )
  t.ok(late instanceof ChargeRefused && late.outcome.outcome === 'insufficient', 'its charge is refused: the call is free')
  t.same(await state(c.accountId, c.keyId), {
    balance: 0,
    reserved: 0,
    held: 0,
    month_spend: credits,
    ledger_sum: 0,
    usage_rows: calls,
    usage_credits: credits,
    open_leases: 0,
  })
})

t.test('a recall keeps the calls still running as holds: one charged when it ends, one released when it fails', async (t) => {
  const c = await app.customer(100_000)
  const book = new LeaseBook(db, () => new Date(clock), 300, { busyCallsPerSecond: 1, minCalls: 20 })
  const call = (i: number) =>
    book.hold(
      {
        accountId: c.accountId,
        keyId: c.keyId,
        price: PRICE,
        endpoint: 'paid',
        requestId: `run-${i}`,
        holdTtlSeconds: 300,
        now: new Date(clock),
      },
      true,
    )
  const [a, b, d] = await Promise.all([call(0), call(1), call(2)])
  if (a?.outcome !== 'ok' || b?.outcome !== 'ok' || d?.outcome !== 'ok') throw new Error('not held')
  t.ok(a.lease && b.lease && d.lease, 'three slices of one block')
  await capture(db, a, { n: 0 }, new Date(clock))
  t.equal(await book.recall(c.accountId), true, 'a block was open')
  t.same(await state(c.accountId, c.keyId), {
    balance: 100_000 - PRICE,
    reserved: 2 * PRICE,
    held: 2 * PRICE,
    month_spend: PRICE,
    ledger_sum: 100_000 - PRICE,
    usage_rows: 1,
    usage_credits: PRICE,
    open_leases: 0,
  })
  const [holds] = await db.sql(`select count(*)::int as n from holds where account_id = ? and state = 'open'`, [c.accountId])
  t.equal(holds!.n, 2, 'the two running calls hold their price')
  const ended = await capture(db, b, { n: 1 }, new Date(clock))
  t.match(JSON.parse(ended.body), { n: 1, usage: { credits: PRICE, livemode: true } }, 'the call that ends is charged through its hold')
  t.equal(await release(db, d), true, 'the call that fails is released')
  t.equal(await book.recall(c.accountId), false, 'nothing left to recall')
  t.same(await state(c.accountId, c.keyId), {
    balance: 100_000 - 2 * PRICE,
    reserved: 0,
    held: 0,
    month_spend: 2 * PRICE,
    ledger_sum: 100_000 - 2 * PRICE,
    usage_rows: 2,
    usage_credits: 2 * PRICE,
    open_leases: 0,
  })
})

t.test('a spend cap holds under concurrency while the key is leased (C9)', async (t) => {
  const cap = 1000
  const c = await app.customer(1_000_000, { plan: 'team', monthlySpendCap: cap })
  const funded = (await state(c.accountId, c.keyId)).balance! // the plan's grant included
  const results = await Promise.all(
    Array.from({ length: 300 }, (_, i) => app.call('/v1/paid', { body: { text: `capped ${i}` }, key: c.key })),
  )
  t.equal(results.filter((r) => r.status === 200).length, cap / PRICE, 'cap 1000 at price 5: 200 calls')
  t.ok(
    results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'spend_cap_reached'),
    'the rest: spend_cap_reached',
  )
  const [leased] = await db.sql(`select count(*)::int as n from credit_leases where account_id = ?`, [c.accountId])
  t.ok(leased!.n >= 1, 'the key was leased')
  t.same(await state(c.accountId, c.keyId), {
    balance: funded - cap,
    reserved: 0,
    held: 0,
    month_spend: cap,
    ledger_sum: funded - cap,
    usage_rows: cap / PRICE,
    usage_credits: cap,
    open_leases: 0,
  })
})

t.test('CREDIT_LEASE is on or off; anything else refuses to start', async (t) => {
  t.equal(loadConfig({}).creditLease, false, 'off by default')
  t.equal(loadConfig({ CREDIT_LEASE: 'on' }).creditLease, true)
  t.equal(loadConfig({ CREDIT_LEASE: 'off' }).creditLease, false)
  t.throws(() => loadConfig({ CREDIT_LEASE: 'true' }), new BootRefusal('CREDIT_LEASE must be on or off, got "true"'))
})

t.test('a block settles when its minute is up, without another call of its key (once its running calls end)', async (t) => {
  const c = await app.customer(100_000)
  const book = new LeaseBook(db, () => new Date(clock), 300, { busyCallsPerSecond: 1, minCalls: 20, allocateMs: 300 })
  const call = (i: number) =>
    book.hold(
      {
        accountId: c.accountId,
        keyId: c.keyId,
        price: PRICE,
        endpoint: 'paid',
        requestId: `quiet-${i}`,
        holdTtlSeconds: 300,
        now: new Date(clock),
      },
      true,
    )
  const [a, b] = await Promise.all([call(0), call(1)])
  if (a?.outcome !== 'ok' || b?.outcome !== 'ok' || !a.lease || !b.lease) throw new Error('not leased')
  await capture(db, a, { n: 0 }, new Date(clock))
  await new Promise((r) => setTimeout(r, 600))
  t.match(await state(c.accountId, c.keyId), { balance: 100_000, open_leases: 1 }, 'past its minute with a call running: open')
  await capture(db, b, { n: 1 }, new Date(clock))
  for (let i = 0; i < 50 && (await state(c.accountId, c.keyId)).open_leases; i++) await new Promise((r) => setTimeout(r, 20))
  t.same(
    await state(c.accountId, c.keyId),
    {
      balance: 100_000 - 2 * PRICE,
      reserved: 0,
      held: 0,
      month_spend: 2 * PRICE,
      ledger_sum: 100_000 - 2 * PRICE,
      usage_rows: 2,
      usage_credits: 2 * PRICE,
      open_leases: 0,
    },
    'settled once the running call ended: both calls in the ledger, the rest back',
  )
})

t.test('an async call on an account whose credits are in a block is refused only after the block is recalled', async (t) => {
  const c = await app.customer(1000)
  const [l] = await db.sql<Lease>(`select * from lease_credits(?, ?, 'async-node', ?, '300 seconds', ?, 1)`, [
    c.accountId,
    c.keyId,
    PRICE,
    new Date(clock),
  ])
  t.equal(Number(l!.available_after), 0, "another node's block holds every credit")
  const r = await app.call('/v1/later', { body: { text: 'later', async: true }, key: c.key })
  t.equal(r.status, 202, 'accepted: the block was recalled, not a 402')
  t.match(await state(c.accountId, c.keyId), { balance: 1000, reserved: PRICE, open_leases: 0 }, 'the job holds its price')
})

t.test('CREDIT_LEASE_MIN_CALLS: the least calls a block covers, and 1/it the most of the available credits it takes', async (t) => {
  const c = await app.customer(199)
  const take = async (minCalls: number) =>
    (
      await db.sql<Lease>(`select * from lease_credits(?, ?, 'floor-node', ?, '300 seconds', ?, ?)`, [
        c.accountId,
        c.keyId,
        PRICE,
        new Date(clock),
        minCalls,
      ])
    )[0]
  t.equal(await take(20), undefined, '20 (the default): 199 / 20 = 9 credits cover no 20 calls of 5: no block')
  const l = (await take(1))!
  t.same([Number(l.hi) - Number(l.lo), Number(l.available_after)], [199, 0], '1: every available credit, a block of 39 calls')
  t.equal(await take(1), undefined, 'nothing left for another block')
  await settle(l.lease_id)
  t.match(await state(c.accountId, c.keyId), { balance: 199, reserved: 0, held: 0, open_leases: 0 }, 'settled unused: all back')
})

t.test('the lease settings refuse to start unless whole numbers of 1 or more', async (t) => {
  t.same([loadConfig({}).creditLeaseBusyCalls, loadConfig({}).creditLeaseMinCalls], [20, 20], 'defaults')
  const set = loadConfig({ CREDIT_LEASE_BUSY_CALLS: '1', CREDIT_LEASE_MIN_CALLS: '3' })
  t.same([set.creditLeaseBusyCalls, set.creditLeaseMinCalls], [1, 3])
  t.throws(
    () => loadConfig({ CREDIT_LEASE_BUSY_CALLS: '0' }),
    new BootRefusal('CREDIT_LEASE_BUSY_CALLS must be a whole number of 1 or more, got "0"'),
  )
  t.throws(() => loadConfig({ CREDIT_LEASE_MIN_CALLS: '0.5' }), new BootRefusal('CREDIT_LEASE_MIN_CALLS must be a whole number, got "0.5"'))
})
