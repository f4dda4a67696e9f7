// Credit leases (CREDIT_LEASE=on; BENCHMARKS.md, "The credit lease"). A process that serves a key busily takes a
// block of its account's credits (lease_credits, under the account's and the key's locks) and hands each of the
// key's live calls the next slice of the block in memory; the call is then charged with one insert
// (charge_lease) that locks neither row, instead of a hold and a capture that each pass the account's row.
// PostgreSQL refuses a slice outside the block or charged twice (the constraints of lease_charges), so what this
// process believes can only cost it a refusal, never an overcharge. A block is settled (settle_lease) when it is
// spent or a minute old, at shutdown, before any 402 of its account (recall), and by maintenance once expired.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Database } from '../db/database.ts'
import { capture, inAccountTurn, release, reserve, type LeasedCall, type ReserveArgs, type ReserveOutcome } from './wallet.ts'

/** A block hands out slices for a minute, then settles; it expires (maintenance settles it) after the hold TTL, as a hold would. */
const ALLOCATE_MS = 60_000
/** After lease_credits found the account or the key too poor for a block, that key is served hold by hold this long. */
const REFUSED_MS = 1000

interface Lease {
  id: string
  accountId: string
  keyId: string
  lo: number
  hi: number
  next: number
  availableAfter: number
  allocateUntil: number
  /** Slices handed out and neither charged nor released. */
  live: Set<Slice>
  /** charge_lease statements in flight. */
  charging: Set<Promise<unknown>>
  retired: boolean
  /** Set while the block is settled with its running calls kept as holds; charges wait for it. */
  settling?: Promise<void>
}

interface Slice extends LeasedCall {
  lease: Lease
  from: number
  args: ReserveArgs
  /** The hold this running call became when its block was settled under it. */
  holdId?: string
  /** Its block was settled without it (by another process or maintenance): it is charged as a hold would be. */
  gone?: boolean
}

/** The charge of a call whose block was settled under it, refused by reserve_call: the call is free. */
export class ChargeRefused extends Error {
  readonly outcome: Exclude<ReserveOutcome, { outcome: 'ok' }>
  constructor(outcome: Exclude<ReserveOutcome, { outcome: 'ok' }>) {
    super(`charge refused: ${outcome.outcome}`)
    this.outcome = outcome
  }
}

export class LeaseBook {
  readonly node = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
  private readonly current = new Map<string, Lease>()
  private readonly refilling = new Map<string, Promise<Lease | null>>()
  private readonly refusedUntil = new Map<string, number>()
  private readonly open = new Set<Lease>()
  private calls = new Map<string, number>()
  private previousCalls = new Map<string, number>()
  private windowStart = 0

  private readonly db: Database
  private readonly now: () => Date
  private readonly holdTtlSeconds: number
  private readonly busyCallsPerSecond: number
  private readonly minCalls: number
  private readonly allocateMs: number

  /**
   * `busyCallsPerSecond`: a key is leased for once this process saw this many of its calls within a second (a quiet
   * key is served as before); `minCalls`: the fewest calls a block covers (CREDIT_LEASE_BUSY_CALLS,
   * CREDIT_LEASE_MIN_CALLS); `allocateMs`: how long a block hands out slices before it settles (a minute).
   */
  constructor(
    db: Database,
    now: () => Date,
    holdTtlSeconds: number,
    settings: { busyCallsPerSecond: number; minCalls: number; allocateMs?: number },
  ) {
    this.db = db
    this.now = now
    this.holdTtlSeconds = holdTtlSeconds
    this.busyCallsPerSecond = settings.busyCallsPerSecond
    this.minCalls = settings.minCalls
    this.allocateMs = settings.allocateMs ?? ALLOCATE_MS
  }

  /** A live call's hold: a slice of its key's block when there is (or may be) one, else reserve_call as before. */
  async hold(a: ReserveArgs, leasable: boolean): Promise<ReserveOutcome> {
    if (leasable && !a.idempotency && a.price > 0) {
      const slice = await this.take(a)
      if (slice) return { outcome: 'ok', holdId: `lease ${slice.lease.id} ${slice.from}`, idempotencyKey: null, lease: slice }
    }
    return this.unlessRecalled(a.accountId, () => this.reserve(a))
  }

  /**
   * A refusal is only answered once no block of the account is open (they hold credits the work may use): refused
   * while one was, the work is tried once more after the recall. A hold, an async acceptance, a cached call's claim.
   */
  async unlessRecalled<T extends { outcome: string | null }>(accountId: string, attempt: () => Promise<T>): Promise<T> {
    const first = await attempt()
    if ((first.outcome === 'insufficient' || first.outcome === 'spend_cap') && (await this.recall(accountId))) return attempt()
    return first
  }

  /** Settles every block of the account this process holds, then any other process's (fenced: theirs can only refund). */
  async recall(accountId: string): Promise<boolean> {
    const mine = [...this.open].filter((l) => l.accountId === accountId)
    await Promise.all(mine.map((l) => this.settle(l)))
    const others = await this.db.sql<{ id: string }>(
      `select id from credit_leases where account_id = ? and state = 'open' and node <> ? order by id`,
      [accountId, this.node],
    )
    for (const { id } of others) await settleLease(this.db, id, [], this.holdTtlSeconds, this.now())
    return mine.length + others.length > 0
  }

  /** At shutdown: every open block settled, its running calls kept as holds; one that fails is maintenance's at expiry. */
  async settleAll(): Promise<void> {
    await Promise.allSettled([...this.open].map((l) => this.settle(l)))
  }

  private reserve(a: ReserveArgs): Promise<ReserveOutcome> {
    return inAccountTurn(a.accountId, () => reserve(this.db.asyncCommit, a))
  }

  private async take(a: ReserveArgs): Promise<Slice | null> {
    const k = `${a.accountId}/${a.keyId}`
    if (!this.busy(k)) return null
    let lease = this.current.get(k)
    if (lease && (lease.next + a.price > lease.hi || Date.now() >= lease.allocateUntil)) {
      this.retire(lease)
      this.settleIfDone(lease)
      lease = undefined
    }
    lease ??= (await this.refill(k, a)) ?? undefined
    if (!lease || lease.retired || lease.next + a.price > lease.hi) return null
    const slice: Slice = {
      lease,
      from: lease.next,
      args: a,
      charge: (result, now) => this.charge(slice, result, now),
      release: () => this.release(slice),
    }
    lease.next += a.price
    lease.live.add(slice)
    return slice
  }

  /** Counts the key's calls per second; a key with enough of them in this second or the last one is busy. */
  private busy(k: string): boolean {
    const now = Date.now()
    if (now - this.windowStart >= 1000) {
      this.previousCalls = now - this.windowStart < 2000 ? this.calls : new Map<string, number>()
      this.calls = new Map()
      this.windowStart = now
    }
    const n = (this.calls.get(k) ?? 0) + 1
    this.calls.set(k, n)
    return Math.max(n, this.previousCalls.get(k) ?? 0) >= this.busyCallsPerSecond
  }

  private refill(k: string, a: ReserveArgs): Promise<Lease | null> {
    if ((this.refusedUntil.get(k) ?? 0) > Date.now()) return Promise.resolve(null)
    let pending = this.refilling.get(k)
    if (!pending) {
      pending = this.lease(a).finally(() => this.refilling.delete(k))
      this.refilling.set(k, pending)
    }
    return pending
  }

  private async lease(a: ReserveArgs): Promise<Lease | null> {
    const k = `${a.accountId}/${a.keyId}`
    const [row] = await inAccountTurn(a.accountId, () =>
      this.db.sql<{ lease_id: string; lo: string; hi: string; available_after: string }>(
        `select * from lease_credits(?, ?, ?, ?, ?::interval, ?, ?)`,
        [a.accountId, a.keyId, this.node, a.price, `${this.holdTtlSeconds} seconds`, this.now(), this.minCalls],
      ),
    )
    if (!row) {
      this.refusedUntil.set(k, Date.now() + REFUSED_MS)
      return null
    }
    const lease: Lease = {
      id: row.lease_id,
      accountId: a.accountId,
      keyId: a.keyId,
      lo: Number(row.lo),
      hi: Number(row.hi),
      next: Number(row.lo),
      availableAfter: Number(row.available_after),
      allocateUntil: Date.now() + this.allocateMs,
      live: new Set(),
      charging: new Set(),
      retired: false,
    }
    this.current.set(k, lease)
    this.open.add(lease)
    // Settled when its minute is up, not at its key's next call: a key gone quiet (or revoked) has its calls in the
    // ledger and its unspent credits back then, not when maintenance finds the block expired.
    setTimeout(() => {
      this.retire(lease)
      this.settleIfDone(lease)
    }, this.allocateMs).unref()
    return lease
  }

  /** No new slices; settled once its running calls are charged or released (settleIfDone). */
  private retire(lease: Lease): void {
    lease.retired = true
    const k = `${lease.accountId}/${lease.keyId}`
    if (this.current.get(k) === lease) this.current.delete(k)
  }

  private settleIfDone(lease: Lease): void {
    // A failed settlement leaves the block to maintenance at its expiry, which settles it the same way.
    if (lease.retired && lease.live.size === 0 && !lease.settling) this.settle(lease).catch(() => undefined)
  }

  /** Settles the block once the charges in flight are in; its running calls become holds. A failure may be retried. */
  private settle(lease: Lease): Promise<void> {
    this.retire(lease)
    lease.settling ??= this.settleNow(lease).catch((e: unknown) => {
      lease.settling = undefined
      throw e
    })
    return lease.settling
  }

  private async settleNow(lease: Lease): Promise<void> {
    await Promise.allSettled([...lease.charging])
    const keep = [...lease.live].filter((s) => !s.holdId && !s.gone)
    const kept = await inAccountTurn(lease.accountId, () =>
      settleLease(
        this.db,
        lease.id,
        keep.map((s) => ({
          from: s.from,
          price: s.args.price,
          endpoint: s.args.endpoint,
          requestId: s.args.requestId,
          size: s.args.size,
        })),
        this.holdTtlSeconds,
        this.now(),
      ),
    )
    for (const s of keep) {
      const holdId = kept.get(s.from)
      if (holdId) s.holdId = holdId
      else s.gone = true
    }
    this.open.delete(lease)
  }

  private async charge(s: Slice, result: object, now: Date): Promise<{ body: string; available: number }> {
    const { lease } = s
    try {
      if (lease.settling) await lease.settling.catch(() => undefined)
      if (s.holdId) return await this.captureHold(s, s.holdId, result, now)
      if (!s.gone) {
        const charged = this.db.sql<{ body: string; available: string }>(
          `select * from charge_lease(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
          [
            lease.id,
            lease.lo,
            lease.hi,
            s.from,
            s.args.price,
            s.args.endpoint,
            s.args.requestId,
            s.args.size ? JSON.stringify(s.args.size) : null,
            JSON.stringify(result),
            now,
          ],
        )
        lease.charging.add(charged)
        try {
          const [row] = await charged
          return { body: row!.body, available: Number(row!.available) }
        } catch (e) {
          if (!refusedByLease(e)) throw e
        } finally {
          lease.charging.delete(charged)
        }
      }
      // The block was settled without this slice (the exclusion constraint said so): charged as a hold would be.
      const held = await this.reserve(s.args)
      if (held.outcome !== 'ok') throw new ChargeRefused(held)
      return await this.captureHold(s, held.holdId, result, now)
    } finally {
      lease.live.delete(s)
      this.settleIfDone(lease)
    }
  }

  private async captureHold(s: Slice, holdId: string, result: object, now: Date): Promise<{ body: string; available: number }> {
    s.holdId = holdId // a failed capture is released through the slice
    return inAccountTurn(s.args.accountId, () => capture(this.db, { holdId, idempotencyKey: null }, result, now))
  }

  private async release(s: Slice): Promise<boolean> {
    s.lease.live.delete(s)
    this.settleIfDone(s.lease)
    if (s.lease.settling) await s.lease.settling.catch(() => undefined)
    const holdId = s.holdId
    if (!holdId) return true // its slice goes back with the block
    return inAccountTurn(s.args.accountId, () => release(this.db, { holdId, idempotencyKey: null }))
  }
}

interface KeptSlice {
  from: number
  price: number
  endpoint: string
  requestId: string
  size: ReserveArgs['size']
}

async function settleLease(db: Database, id: string, keep: KeptSlice[], holdTtlSeconds: number, now: Date): Promise<Map<number, string>> {
  const rows = await db.sql<{ kept_from: string; hold_id: string }>(`select * from settle_lease(?, ?::jsonb, ?::interval, ?)`, [
    id,
    JSON.stringify(keep),
    `${holdTtlSeconds} seconds`,
    now,
  ])
  return new Map(rows.map((r) => [Number(r.kept_from), r.hold_id]))
}

/** 23P01: the slice overlaps a settled block's fence (or another charge); 23503: the block is gone. */
function refusedByLease(e: unknown): boolean {
  const code = (e as { code?: unknown }).code
  return code === '23P01' || code === '23503'
}

/** Blocks of processes that died (or lost the database) past their expiry, settled one statement each (maintenance). */
export async function settleExpiredLeases(db: Database, now: Date): Promise<number> {
  const expired = await db.sql<{ id: string }>(
    `select id from credit_leases where state = 'open' and expires_at < ? order by account_id, id`,
    [now],
  )
  for (const { id } of expired) await settleLease(db, id, [], 0, now)
  return expired.length
}

const books = new WeakMap<Database, LeaseBook>()

/** This process's lease book for the database, or null with CREDIT_LEASE=off. */
export function creditLeases(
  db: Database,
  config: { creditLease: boolean; creditLeaseBusyCalls: number; creditLeaseMinCalls: number },
  now: () => Date,
  holdTtlSeconds: number,
): LeaseBook | null {
  if (!config.creditLease) return null
  let book = books.get(db)
  if (!book)
    books.set(
      db,
      (book = new LeaseBook(db, now, holdTtlSeconds, {
        busyCallsPerSecond: config.creditLeaseBusyCalls,
        minCalls: config.creditLeaseMinCalls,
      })),
    )
  return book
}

/** At shutdown, before the database closes: this process's blocks settled. */
export async function settleLeases(db: Database): Promise<void> {
  await books.get(db)?.settleAll()
}
