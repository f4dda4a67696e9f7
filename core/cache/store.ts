// The cached results (C20): one row per account, mode and key, the result sealed with the service's key
// (core/secrets.ts), kept RESULT_CACHE_TTL_HOURS, with what its model requests cost (saved by every hit).
import type { Database, Query } from '../db/database.ts'
import type { SecretBox } from '../secrets.ts'
import { Flights } from './flights.ts'

/** Where a result belongs: never shared between accounts, nor between test and live. */
export interface CacheSlot {
  accountId: string
  livemode: boolean
  key: Buffer
  endpoint: string
}

export class ResultCache {
  readonly flights: Flights
  private readonly db: Database
  private readonly secrets: SecretBox
  readonly settings: { pricePercent: number; ttlHours: number }
  constructor(db: Database, secrets: SecretBox, settings: { pricePercent: number; ttlHours: number }, log: (message: string) => void) {
    this.db = db
    this.secrets = secrets
    this.settings = settings
    this.flights = new Flights(db.url, log)
  }

  /** RESULT_CACHE_PRICE_PERCENT of the call's price, rounded up. */
  hitPrice(price: number): number {
    return Math.ceil((price * this.settings.pricePercent) / 100)
  }

  /**
   * Keeps a result (a second store of the same key, by a call that ran alone, replaces it). Committed without
   * waiting for the disk: visible to the followers at once, and a crash that loses it costs one model call again.
   */
  async store(slot: CacheSlot, result: string, providerCostUsd: number, now: Date): Promise<void> {
    const expires = new Date(now.getTime() + this.settings.ttlHours * 3_600_000)
    await this.db.asyncCommit.sql(
      `insert into result_cache as c (account_id, livemode, key, endpoint, result, provider_cost_usd, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (account_id, livemode, key) do update
         set result = excluded.result, provider_cost_usd = excluded.provider_cost_usd, created_at = excluded.created_at,
             expires_at = excluded.expires_at`,
      [slot.accountId, slot.livemode, slot.key, slot.endpoint, this.secrets.seal(result), providerCostUsd, now, expires],
    )
  }

  /** Whether a live result is kept for this slot (a dry run's quote): no lock, no wait. */
  async has(slot: CacheSlot, now: Date): Promise<boolean> {
    const rows = await this.db.sql(`select 1 from result_cache where account_id = ? and livemode = ? and key = ? and expires_at > ?`, [
      slot.accountId,
      slot.livemode,
      slot.key,
      now,
    ])
    return rows.length > 0
  }

  /** The stored result, or null when no configured key opens it any more (then the call runs again). */
  open(sealed: string): string | null {
    try {
      return this.secrets.open(sealed)
    } catch {
      return null
    }
  }

  close(): Promise<void> {
    return this.flights.close()
  }
}

/** The account's results of one mode, gone (DELETE /v1/cache, which writes its audit entry in the same transaction). */
export async function emptyCache(q: Query, accountId: string, livemode: boolean): Promise<number> {
  const [row] = await q.sql<{ n: string }>(
    `with gone as (delete from result_cache where account_id = ? and livemode = ? returning 1) select count(*) as n from gone`,
    [accountId, livemode],
  )
  return Number(row?.n ?? 0)
}

/** Results past their TTL (the maintenance pass). */
export async function pruneResultCache(q: Query, now: Date): Promise<number> {
  const [row] = await q.sql<{ n: string }>(
    `with gone as (delete from result_cache where expires_at <= ? returning 1) select count(*) as n from gone`,
    [now],
  )
  return Number(row?.n ?? 0)
}
