// The key cache (C9): a bearer key to its caller without a lookup per call, with revocations reaching every
// instance within REVOCATION_MS.
import { hash, timingSafeEqual } from 'node:crypto'
import pg from 'pg'
import type { Query } from '../db/database.ts'
import { reviewSettingOf, type Caller, type KeyMode, type ReviewSetting } from '../http/caller.ts'
import type { KeyPermission } from '../roles.ts'
import { FailedAuthentications } from '../ratelimit.ts'

/** What a key is stored and looked up under: its SHA-256. */
export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer') // one-shot: no Hash object per request
}

/** How long a cached key may be served without news from the revocation listener (C9: revocation within 1 s). */
export const REVOCATION_MS = 1000

/**
 * Bearer key → caller, cached so a live call costs no lookup. Revocation (C9) reaches every instance within
 * `REVOCATION_MS`: migration 0013 NOTIFYs `api_key_revoked` for every revoked or deleted key (0020: and a changed scope), and `listen()` keeps a
 * connection LISTENing that forgets the key at once. An entry also carries its account's review settings (C21):
 * their change NOTIFYs the account's id on the same channel (core/reviews/settings.ts), which forgets every key of
 * the account. An entry is served past `REVOCATION_MS` only while that connection is known to be current: it
 * answers a ping every `REVOCATION_MS / 4` while keys are being looked up (none in an idle process), and PostgreSQL delivers every notification committed before a query ahead of the
 * query's answer, so an answered ping sent at t means every revocation before t has been applied. Without the
 * listener (lost, not started) entries last `REVOCATION_MS`.
 * Unknown hashes are remembered for `ttlMs`, and a client (its address) with more than `failuresPerMinute`
 * failed lookups gets 429 without a lookup.
 */
export class KeyCache {
  private readonly entries = new Map<string, { caller: Caller; hash: Buffer; until: number; at: number; epoch: number }>()
  private readonly unknown = new Map<string, number>()
  /** Shared with the operator areas' tokens (http/routing.ts). */
  readonly failures: FailedAuthentications
  private readonly db: Query
  private readonly opts: { now: () => Date; ttlMs?: number; failuresPerMinute?: number }
  /** Bumped whenever the listener is lost or (re)established: entries looked up under another epoch may have missed a revocation. */
  private epoch = 0
  private listening = false
  /** performance.now() when the last answered ping was sent. */
  private currentAt = -Infinity
  /** performance.now() when the cache was last asked: an idle process (a worker) does not ping. */
  private usedAt = -Infinity
  private stopListening: (() => Promise<void>) | null = null
  constructor(db: Query, opts: { now: () => Date; ttlMs?: number; failuresPerMinute?: number }) {
    this.db = db
    this.opts = opts
    this.failures = new FailedAuthentications(opts.failuresPerMinute)
  }

  async lookup(key: string, client = ''): Promise<Caller | null> {
    this.usedAt = performance.now()
    const hash = hashKey(key)
    const cacheKey = hash.toString('base64')
    const hit = this.entries.get(cacheKey)
    if (hit && this.fresh(hit) && timingSafeEqual(hit.hash, hash)) return hit.caller
    await this.failures.refuseIfOver(client)
    const at = performance.now()
    const epoch = this.epoch
    const row = (this.unknown.get(cacheKey) ?? 0) > this.clock() ? undefined : await this.findKey(hash)
    if (!row) {
      this.entries.delete(cacheKey)
      if (this.unknown.size > 10_000) this.unknown.clear()
      this.unknown.set(cacheKey, this.clock() + this.ttlMs)
      await this.failures.record(client)
      return null
    }
    const caller: Caller = {
      keyId: row.id,
      accountId: row.account_id,
      mode: row.mode,
      permissions: row.permissions,
      capabilities: row.capabilities ? new Set(row.capabilities) : null,
      review: reviewSettingOf({ mode: row.review_mode, threshold: row.review_threshold, endpoints: row.review_endpoints }),
    }
    if (this.entries.size > 10_000) this.entries.clear()
    this.entries.set(cacheKey, { caller, hash, until: this.clock() + this.ttlMs, at, epoch })
    return caller
  }

  /** Within its TTL, and either read less than REVOCATION_MS ago or covered by a listener that has been current since. */
  private fresh(e: { until: number; at: number; epoch: number }): boolean {
    if (e.until <= this.clock()) return false
    const now = performance.now()
    if (now - e.at < REVOCATION_MS) return true
    return this.listening && e.epoch === this.epoch && now - this.currentAt < REVOCATION_MS
  }

  private clock(): number {
    return this.opts.now().getTime()
  }

  private get ttlMs(): number {
    return this.opts.ttlMs ?? 60_000
  }

  private async findKey(hash: Buffer) {
    const [row] = await this.db.sql<{
      id: string
      account_id: string
      key_hash: Buffer
      mode: KeyMode
      permissions: KeyPermission
      capabilities: string[] | null
      review_mode: ReviewSetting['mode'] | null
      review_threshold: string | null
      review_endpoints: string[] | null
    }>(
      `select k.id, k.account_id, k.key_hash, k.mode, k.permissions, k.capabilities,
              r.mode as review_mode, r.threshold as review_threshold, r.endpoints as review_endpoints
         from api_keys k left join review_settings r on r.account_id = k.account_id and r.mode <> 'off'
        where k.key_hash = ? and k.revoked_at is null`,
      [hash],
    )
    return row && timingSafeEqual(row.key_hash, hash) ? row : undefined
  }

  /** Forgets a key, or every key of an account (its id: its review settings changed). */
  forget(id: string): void {
    for (const [k, v] of this.entries) if (v.caller.keyId === id || v.caller.accountId === id) this.entries.delete(k)
  }

  /**
   * LISTENs for revocations on a connection of its own, reconnecting when it is lost; until it is back, entries
   * fall back to REVOCATION_MS. Resolves once the first LISTEN is in place (or failed: it keeps trying).
   */
  listen(url: string): Promise<void> {
    let client: pg.Client | null = null
    let timer: NodeJS.Timeout | undefined
    let stopped = false
    const lost = (c: pg.Client) => {
      if (client !== c) return
      client = null
      this.listening = false
      this.epoch++
      clearInterval(timer)
      void c.end().catch(() => {})
      if (!stopped) setTimeout(() => void connect(), REVOCATION_MS / 2).unref()
    }
    const connect = async () => {
      const c = new pg.Client({ connectionString: url, application_name: 'key-revocations' })
      client = c
      c.on('error', () => lost(c))
      c.on('end', () => lost(c))
      c.on('notification', (n) => n.payload && this.forget(n.payload))
      try {
        await c.connect()
        await c.query('listen api_key_revoked')
      } catch {
        lost(c)
        return
      }
      if (client !== c) return
      if (stopped) return lost(c)
      this.epoch++ // entries read before the LISTEN may have missed a revocation
      this.listening = true
      this.currentAt = performance.now()
      let pinging = false
      timer = setInterval(() => {
        if (pinging) return // a ping unanswered: the entries age out on their own
        if (performance.now() - this.usedAt > 2 * REVOCATION_MS) return // idle: the next call looks its key up
        pinging = true
        const sent = performance.now()
        c.query('select 1').then(
          () => {
            pinging = false
            this.currentAt = Math.max(this.currentAt, sent)
          },
          () => lost(c),
        )
      }, REVOCATION_MS / 4).unref()
    }
    this.stopListening = async () => {
      stopped = true
      const c = client
      if (c) lost(c)
    }
    return connect()
  }

  async close(): Promise<void> {
    await this.stopListening?.()
  }
}
