// The cached results (C20): one row per account, mode and key, the result sealed with the service's key
// (core/secrets.ts), kept RESULT_CACHE_TTL_HOURS from its call's hold, with what its model requests cost (saved by
// every hit). A row without a result is a call in flight (flights.ts); the capture of a miss stores into it.
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
  private readonly log: (message: string) => void
  readonly settings: { pricePercent: number; ttlHours: number }
  constructor(db: Database, secrets: SecretBox, settings: { pricePercent: number; ttlHours: number }, log: (message: string) => void) {
    this.db = db
    this.secrets = secrets
    this.settings = settings
    this.log = log
    this.flights = new Flights(db.url)
  }

  /** RESULT_CACHE_PRICE_PERCENT of the call's price, rounded up. */
  hitPrice(price: number): number {
    return Math.ceil((price * this.settings.pricePercent) / 100)
  }

  /** When a result stored by a call held at `now` expires. */
  expiresAt(now: Date): Date {
    return new Date(now.getTime() + this.settings.ttlHours * 3_600_000)
  }

  /** Whether a live result is kept for this slot (a dry run's quote): no lock, no wait. */
  async has(slot: CacheSlot, now: Date): Promise<boolean> {
    const rows = await this.db.sql(
      `select 1 from result_cache where account_id = ? and livemode = ? and key = ? and result is not null and expires_at > ?`,
      [slot.accountId, slot.livemode, slot.key, now],
    )
    return rows.length > 0
  }

  seal(result: string): string {
    return this.secrets.seal(result)
  }

  /** The stored result, or null when no configured key opens it any more (then the call runs again). */
  open(sealed: string): string | null {
    try {
      return this.secrets.open(sealed)
    } catch (e) {
      this.log(`[cache] a stored result does not open (${(e as Error).message}): the call runs again`)
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
    `with gone as (delete from result_cache where account_id = ? and livemode = ? and result is not null returning 1)
     select count(*) as n from gone`,
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
