// The pipeline's hook (C20): what a live sync call of a `cache: true` capability does about the cache, decided
// after its price (and its documents' digests) are known and before its hold. A hit holds and charges the hit
// price and answers the stored result; a miss leads (or runs alone) and stores what it charged; a bypass (no-store,
// async, a document not read) neither reads nor writes. `Service-Cache` says which.
//
// Async calls bypass the cache: their job runs later in a worker, where a result may be stored by then, and a
// 202 cannot say what the job will cost.
import type { Context } from 'koa'
import type { Caller } from '../http/caller.ts'
import type { DocumentDigests } from '../documents/same-document.ts'
import type { Capability } from '../run/registry.ts'
import type { Services } from '../services.ts'
import { capture, captureCached, type Hold } from '../wallet/wallet.ts'
import { cacheKey } from './key.ts'
import type { CacheSlot } from './store.ts'

export type CacheOutcome = 'hit' | 'miss' | 'bypass'

/** A follower waits at most the leader's own deadline and this much more before it runs alone. */
const FOLLOWER_GRACE_MS = 5000

export interface CacheTurn {
  /** What the call holds: its price, or the hit price. */
  price: number
  /** A hit's result, for the stages after the hold (its capture sends the stored bytes, not these). */
  hit?: object
  /** The hold's capture; a miss also stores what it charged for. */
  capture(q: Parameters<typeof capture>[0], hold: Hold, result: object, now: Date): Promise<{ body: string; available: number }>
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

const plain = (price: number): CacheTurn => ({ price, capture })

/** The turn of a live sync call, or null when the client left while it waited for an identical call. */
export async function enterCache(
  ctx: Context,
  services: Services,
  capability: Capability,
  caller: Caller,
  call: CallFacts,
): Promise<CacheTurn | null> {
  if (!capability.cache) return plain(call.credits)
  const slot = !call.async && !noStore(ctx) ? slotOf(services, capability, caller, call.input, call.digests) : null
  if (!slot) return decided(ctx, 'bypass', plain(call.credits))
  const cache = services.resultCache
  const claim = await cache.flights.claim({
    ...slot,
    now: services.now(),
    signal: call.signal,
    maxWaitMs: services.config.syncModelTimeoutMs + FOLLOWER_GRACE_MS,
  })
  if (claim.role === 'gone') return null
  if (claim.role === 'hit') {
    const stored = cache.open(claim.sealed)
    if (stored !== null) {
      return decided(ctx, 'hit', {
        price: cache.hitPrice(call.credits),
        hit: JSON.parse(stored) as object,
        capture: (q, hold, _result, now) => captureCached(q, hold, stored, now, claim.savedUsd),
      })
    }
  }
  // A leader unlocks once its result is stored, or, failing, once its refusal is sent: its followers run alone then.
  const leader = claim.role === 'leader' ? claim : undefined
  if (leader) ctx.res.once('close', () => void leader.end())
  return decided(ctx, 'miss', {
    price: call.credits,
    capture: async (q, hold, result, now) => {
      const charged = await capture(q, hold, result, now)
      await cache.store(slot, JSON.stringify(result), call.providerCost.usd, now)
      await leader?.end()
      return charged
    },
  })
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
