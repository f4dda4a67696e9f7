// The pipeline's hook (C20): what a live sync call of a `cache: true` capability does about the cache. A call that
// reads the cache claims its key in the statement that places its hold (result_cache_hold): a hit holds and charges
// the hit price and answers the stored result; a miss leads (or runs alone) and its capture stores what it charged
// for, in the capture's own transaction (result_cache_capture); a follower holds nothing until its leader ends. So
// a miss makes no round trip more than the same call without the cache. A bypass (no-store, async, a document not
// read) neither reads nor writes. `Service-Cache` says which.
//
// Async calls bypass the cache: their job runs later in a worker, where a result may be stored by then, and a
// 202 cannot say what the job will cost. Under the credit lease (CREDIT_LEASE=on) a call that reads the cache
// takes a hold, never a slice of a lease: a hit's capture and a miss's store are the hold's capture.
import type { Context } from 'koa'
import type { Caller } from '../http/caller.ts'
import type { DocumentDigests } from '../documents/same-document.ts'
import type { Capability } from '../run/registry.ts'
import type { Query } from '../db/database.ts'
import type { Services } from '../services.ts'
import { money } from '../observability/tracing.ts'
import {
  capture,
  captureCached,
  inAccountTurn,
  release,
  reserveCallParams,
  type Hold,
  type ReserveArgs,
  type ReserveOutcome,
} from '../wallet/wallet.ts'
import { cacheKey } from './key.ts'
import type { CacheSlot } from './store.ts'

export type CacheOutcome = 'hit' | 'miss' | 'bypass'

/** A follower waits at most the leader's own deadline and this much more before it runs alone. */
const FOLLOWER_GRACE_MS = 5000

/** How the pipeline holds a call: `leasable`, a slice of a credit lease may do (CREDIT_LEASE=on). */
export interface Holding {
  hold(a: ReserveArgs, leasable: boolean): Promise<ReserveOutcome>
  /** `attempt`, and once more after the account's credit leases are settled when it was refused while one was open. */
  unlessRecalled<T extends { outcome: string | null }>(accountId: string, attempt: () => Promise<T>): Promise<T>
}

export interface Held {
  outcome: ReserveOutcome
  /** What the call holds: its price, or the hit price. */
  price: number
  /** A hit's result, for the stages after the hold (its capture sends the stored bytes, not these). */
  hit?: object
}

export interface CacheTurn {
  /** The call's hold, and its claim when it reads the cache; null when the client left while an identical call ran. */
  hold(a: ReserveArgs, holding: Holding): Promise<Held | null>
  /** The hold's capture; a miss also stores what it charged for. */
  capture(q: Query, hold: Hold, result: object, now: Date): Promise<{ body: string; available: number }>
  /** A failed call's release; a leader's also ends its flight, so its followers run on their own at once. */
  release(q: Query, hold: Hold): Promise<boolean>
}

export interface CallFacts {
  input: Record<string, unknown>
  async: boolean
  /** The call's price for this input, and the digests of the documents it read (pipeline/price.ts). */
  credits: number
  digests?: DocumentDigests | undefined
  signal: AbortSignal
  /** The provider cost its model requests added up so far (what a stored result saves each hit). */
  providerCost: { usd: number }
}

const plain: CacheTurn = {
  hold: async (a, holding) => ({ outcome: await holding.hold(a, true), price: a.price }),
  capture,
  release,
}

/** The turn of a live call (an async call's is the plain hold's). */
export function enterCache(ctx: Context, services: Services, capability: Capability, caller: Caller, call: CallFacts): CacheTurn {
  if (!capability.cache) return plain
  const slot = !call.async && !noStore(ctx) ? slotOf(services, capability, caller, call.input, call.digests) : null
  if (!slot) return decided(ctx, 'bypass', plain)
  return new CachedCall(ctx, services, slot, call)
}

/** A call that reads the cache, through its hold and its capture or release. */
class CachedCall implements CacheTurn {
  /** What its claim made it: the leader of its key's flight, or a miss that runs alone (it marks nothing). */
  private role: 'leader' | 'alone' = 'alone'
  /** A hit's stored result (the exact JSON the first call sent) and the provider cost it saves. */
  private stored: { json: string; savedUsd: number } | null = null
  private expires = new Date(0)
  private readonly ctx: Context
  private readonly services: Services
  private readonly slot: CacheSlot
  private readonly call: CallFacts
  constructor(ctx: Context, services: Services, slot: CacheSlot, call: CallFacts) {
    this.ctx = ctx
    this.services = services
    this.slot = slot
    this.call = call
  }

  async hold(a: ReserveArgs, holding: Holding): Promise<Held | null> {
    const cache = this.services.resultCache
    const leader = await cache.flights.leaderId()
    const deadline = Date.now() + this.services.config.syncModelTimeoutMs + FOLLOWER_GRACE_MS
    this.expires = cache.expiresAt(a.now)
    const hitPrice = cache.hitPrice(a.price)
    let followed = false
    for (;;) {
      if (this.call.signal.aborted) return null
      if (Date.now() > deadline) break // its leader took too long: it runs alone
      const claimed = followed // the value this claim sends, whatever the loop does next
      const row = await holding.unlessRecalled(a.accountId, () =>
        inAccountTurn(a.accountId, () => this.claim(a, hitPrice, leader, claimed)),
      )
      if (row.role === 'follower') {
        followed = true
        await cache.flights.wait(this.slot.key.toString('hex'), this.call.signal, deadline)
        continue
      }
      const outcome = reserved(row, a)
      if (row.role !== 'hit') {
        this.role = row.role
        decided(this.ctx, 'miss', this)
        return { outcome, price: a.price }
      }
      if (outcome.outcome !== 'ok') {
        decided(this.ctx, 'hit', this)
        return { outcome, price: hitPrice }
      }
      const json = cache.open(row.result!)
      if (json !== null) {
        decided(this.ctx, 'hit', this)
        this.stored = { json, savedUsd: Number(row.saved_usd) }
        return { outcome, price: hitPrice, hit: JSON.parse(json) as object }
      }
      await inAccountTurn(a.accountId, () => release(this.services.db, outcome)) // a result no key opens: run again
      break
    }
    decided(this.ctx, 'miss', this)
    return { outcome: await holding.hold(a, false), price: a.price }
  }

  async capture(q: Query, hold: Hold, result: object, now: Date): Promise<{ body: string; available: number }> {
    if (this.stored) return captureCached(q, hold, this.stored.json, now, this.stored.savedUsd)
    const json = JSON.stringify(result)
    const { slot } = this
    const [row] = await money(q).sql<{ body: string; available: string }>(
      `select * from result_cache_capture(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        hold.holdId,
        json,
        hold.idempotencyKey,
        now,
        slot.accountId,
        slot.livemode,
        slot.key,
        slot.endpoint,
        this.services.resultCache.seal(json),
        this.call.providerCost.usd,
        this.expires,
      ],
    )
    if (!row) throw new Error('result_cache_capture returned nothing')
    return { body: row.body, available: Number(row.available) }
  }

  async release(q: Query, hold: Hold): Promise<boolean> {
    if (this.role !== 'leader') return release(q, hold)
    const { slot } = this
    const [row] = await money(q).sql<{ released: boolean }>(`select result_cache_release(?, ?, ?, ?, ?) as released`, [
      hold.holdId,
      hold.idempotencyKey,
      slot.accountId,
      slot.livemode,
      slot.key,
    ])
    return row?.released === true
  }

  private async claim(a: ReserveArgs, hitPrice: number, leader: number, followed: boolean): Promise<ClaimRow> {
    const { slot } = this
    const held = reserveCallParams(a)
    const [row] = await money(this.services.db.asyncCommit).sql<ClaimRow>(
      `select * from result_cache_hold(?, ?, ?, ?, ?, ?, ?::interval, ?, ?, ?::interval, ?, ?::jsonb, ?, ?, ?, ?, ?, ?)`,
      [
        ...held.slice(0, 3), // account, key, price
        hitPrice,
        ...held.slice(3),
        slot.livemode,
        slot.key,
        slot.key.readInt32BE(0),
        leader,
        this.expires,
        followed,
      ],
    )
    if (!row) throw new Error('result_cache_hold returned nothing')
    return row
  }
}

interface ClaimRow {
  role: 'hit' | 'leader' | 'alone' | 'follower'
  outcome: 'ok' | 'replay' | 'in_use' | 'reused' | 'insufficient' | 'spend_cap'
  hold_id: string | null
  status: number | null
  body: string | null
  available: string | null
  result: string | null
  saved_usd: string | null
}

/** The hold's outcome, as the wallet's reserve() reads reserve_call's. */
function reserved(row: ClaimRow, a: ReserveArgs): ReserveOutcome {
  if (row.outcome === 'ok') return { outcome: 'ok', holdId: row.hold_id!, idempotencyKey: a.idempotency?.key ?? null }
  if (row.outcome === 'replay') return { outcome: 'replay', status: row.status!, body: row.body! }
  if (row.outcome === 'insufficient') return { outcome: 'insufficient', available: Number(row.available) }
  return { outcome: row.outcome }
}

/** A dry run's price: the hit price when a live result is kept for this call (C3, C20), else null. */
export async function cachedPrice(
  ctx: Context,
  services: Services,
  capability: Capability,
  caller: Caller,
  input: Record<string, unknown>,
  credits: number,
  digests: DocumentDigests | undefined,
): Promise<number | null> {
  if (!capability.cache || input.async === true || noStore(ctx)) return null
  const slot = slotOf(services, capability, caller, input, digests)
  if (!slot || !(await services.resultCache.has(slot, services.now()))) return null
  return services.resultCache.hitPrice(credits)
}

/** `Service-Cache: no-store`: this call neither reads nor writes the cache. */
function noStore(ctx: Context): boolean {
  return /^\s*no-store\s*$/i.test(ctx.get('Service-Cache'))
}

function slotOf(
  services: Services,
  capability: Capability,
  caller: Caller,
  input: Record<string, unknown>,
  digests: DocumentDigests | undefined,
): CacheSlot | null {
  const { provider } = services
  const key = cacheKey({
    accountId: caller.accountId,
    livemode: caller.mode === 'live',
    endpoint: capability.name,
    version: capability.version ?? 1,
    route: provider.configured ? provider.language(capability.name).map((l) => `${l.provider}:${l.model}`) : [],
    request: capability.request,
    input,
    digests,
  })
  return key && { accountId: caller.accountId, livemode: caller.mode === 'live', key, endpoint: capability.name }
}

function decided(ctx: Context, outcome: CacheOutcome, turn: CacheTurn): CacheTurn {
  ctx.set('Service-Cache', outcome)
  ctx.state.cache = outcome
  return turn
}
