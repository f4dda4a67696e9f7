// Accounts, plans, packs and API keys (C9, C13). Keys are stored as SHA-256 only.
import { hash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import pg from 'pg'
import { Type, type Static } from '@sinclair/typebox'
import type { Database, Query } from '../db/database.ts'
import { ApiKeySchema } from '../db/entities.ts'
import { ApiError } from '../errors.ts'
import type { SecretBox } from '../secrets.ts'
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { UUID } from '../validation.ts'
import { credit } from '../wallet/wallet.ts'

export const PLANS = { none: 0, developer: 1900, team: 2500 } as const
export const PACKS = { first: 500, starter: 2000, growth: 10500, scale: 55000 } as const
export type Plan = keyof typeof PLANS
export type Pack = keyof typeof PACKS

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** A live key spends credits; a test key (issue 30) is served the capability's example and never spends. */
export type KeyMode = 'live' | 'test'
export const KEY_MODES: readonly KeyMode[] = ['live', 'test']
const keyPrefix = (mode: KeyMode) => `ksk_${mode}_`

export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer') // one-shot: no Hash object per request
}

function mintKey(mode: KeyMode): string {
  let secret = ''
  for (let i = 0; i < 32; i++) secret += BASE62[randomInt(62)]
  return keyPrefix(mode) + secret
}

export interface AccountView {
  id: string
  email: string
  plan: Plan
  balance: number
  reserved: number
  available: number
}

export async function getAccount(db: Query, id: string): Promise<AccountView> {
  const [row] = await db.sql<{ id: string; email: string; plan: Plan; balance: string; reserved: string }>(
    `select id, email, plan, balance, reserved from accounts where id::text = ?`,
    [id],
  )
  if (!row) throw new ApiError('not_found', 'No such account.')
  const balance = Number(row.balance)
  const reserved = Number(row.reserved)
  return { id: row.id, email: row.email, plan: row.plan, balance, reserved, available: balance - reserved }
}

function nextMonth(from: Date): Date {
  const d = new Date(from)
  d.setUTCMonth(d.getUTCMonth() + 1)
  return d
}

/** `signupCredits`: the trial credits of a self-serve sign-up (SIGNUP_CREDITS), granted with the account, so once. */
export async function createAccount(
  db: Database,
  input: { email: string; plan?: Plan; signupCredits?: number },
  now: Date,
): Promise<AccountView> {
  const id = randomUUID()
  try {
    await db.tx(async (q) => {
      await q.sql(`insert into accounts (id, email, plan, first_pack_used, created_at) values (?, ?, 'none', false, ?)`, [
        id,
        input.email.toLowerCase(),
        now,
      ])
      if (input.plan && input.plan !== 'none') await applyPlan(q, id, input.plan, now)
      if (input.signupCredits) await credit(q, id, 'adjustment', input.signupCredits, 'sign-up credits', now)
    })
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      throw new ApiError('invalid_request', 'An account with this email exists.', [{ path: '/email', message: 'already used' }])
    throw e
  }
  return getAccount(db, id)
}

export async function applyPlan(q: Query, accountId: string, plan: Plan, now: Date): Promise<void> {
  await q.sql(`update accounts set plan = ?, plan_renews_at = ? where id = ?`, [plan, plan === 'none' ? null : nextMonth(now), accountId])
  if (PLANS[plan] > 0) await credit(q, accountId, 'plan_grant', PLANS[plan], `plan ${plan}`, now)
}

export async function setPlan(db: Database, accountId: string, plan: Plan, now: Date): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx((q) => applyPlan(q, accountId, plan, now))
  return getAccount(db, accountId)
}

/** Grants the next period's bundle to every plan whose period has ended (maintenance). */
export async function renewPlans(db: Database, now: Date): Promise<number> {
  const due = await db.sql<{ id: string; plan: Plan }>(`select id, plan from accounts where plan <> 'none' and plan_renews_at <= ?`, [now])
  for (const row of due) {
    await db.tx(async (q) => {
      const [claimed] = await q.sql(
        `update accounts set plan_renews_at = plan_renews_at + interval '1 month' where id = ? and plan_renews_at <= ? returning id`,
        [row.id, now],
      )
      if (claimed) await credit(q, row.id, 'plan_grant', PLANS[row.plan], `plan ${row.plan} renewal`, now)
    })
  }
  return due.length
}

export async function addCredits(
  db: Database,
  accountId: string,
  input: { pack: Pack } | { credits: number; reason: string },
  now: Date,
): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx(async (q) => {
    if ('pack' in input) {
      await grantPack(q, accountId, input.pack, `pack ${input.pack}`, now)
    } else {
      await credit(q, accountId, 'adjustment', input.credits, input.reason, now)
    }
  })
  return getAccount(db, accountId)
}

/** A pack's credits in the caller's transaction; the first pack only once per account (C9). */
export async function grantPack(q: Query, accountId: string, pack: Pack, reference: string, now: Date): Promise<void> {
  if (pack === 'first') {
    const [row] = await q.sql(`update accounts set first_pack_used = true where id = ? and not first_pack_used returning id`, [accountId])
    if (!row) throw new ApiError('first_pack_used', 'The first pack can be bought once per account.')
  }
  await credit(q, accountId, 'purchase', PACKS[pack], reference, now)
}

export interface KeyView {
  id: string
  prefix: string
  name: string | null
  mode: KeyMode
  monthlySpendCap: number | null
}

function keyView(k: { id: string; prefix: string; name?: string | null; mode: KeyMode; monthlySpendCap?: string | null }): KeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name ?? null,
    mode: k.mode,
    monthlySpendCap: k.monthlySpendCap == null ? null : Number(k.monthlySpendCap),
  }
}

async function requireTeamForSpendCap(db: Query, accountId: string, spendCap: number | null | undefined) {
  if (spendCap == null) return
  const account = await getAccount(db, accountId)
  if (account.plan !== 'team') throw new ApiError('plan_required', 'Per-key monthly spend caps need the Team plan.')
}

/**
 * A new key, shown once. `box`: a test key is also stored sealed with it, so the dashboard can show it again (live
 * keys are only ever stored as a hash).
 */
export async function createKey(
  db: Database,
  accountId: string,
  input: { name?: string; monthlySpendCap?: number | null; mode?: KeyMode },
  box?: SecretBox,
): Promise<KeyView & { key: string }> {
  const mode = input.mode ?? 'live'
  await getAccount(db, accountId)
  if (mode === 'test' && input.monthlySpendCap != null)
    throw new ApiError('invalid_request', 'A test key never spends credits, so it takes no spend cap.', [
      { path: '/monthlySpendCap', message: 'not for a test key' },
    ])
  await requireTeamForSpendCap(db, accountId, input.monthlySpendCap)
  const key = mintKey(mode)
  const em = db.orm.em.fork()
  const entity = em.create(ApiKeySchema, {
    id: randomUUID(),
    accountId,
    name: input.name ?? null,
    mode,
    sealedKey: mode === 'test' && box ? box.seal(key) : null,
    keyHash: hashKey(key),
    prefix: key.slice(0, 12),
    monthlySpendCap: input.monthlySpendCap == null ? null : String(input.monthlySpendCap),
  } as never)
  await em.flush()
  return { ...keyView(entity), key }
}

export async function updateKey(db: Database, keyId: string, input: { monthlySpendCap: number | null }): Promise<KeyView> {
  if (!UUID.test(keyId)) throw new ApiError('not_found', 'No such key.')
  const em = db.orm.em.fork()
  const entity = await em.findOne(ApiKeySchema, { id: keyId, revokedAt: null })
  if (!entity) throw new ApiError('not_found', 'No such key.')
  if (entity.mode === 'test' && input.monthlySpendCap != null)
    throw new ApiError('invalid_request', 'A test key never spends credits, so it takes no spend cap.')
  await requireTeamForSpendCap(db, entity.accountId, input.monthlySpendCap)
  entity.monthlySpendCap = input.monthlySpendCap == null ? null : String(input.monthlySpendCap)
  await em.flush()
  return keyView(entity)
}

/** The account's sealed test key `keyId` (one the dashboard minted), opened; null when there is none. */
export async function openTestKey(
  db: Query,
  box: SecretBox,
  accountId: string,
  keyId?: string,
): Promise<{ id: string; key: string } | null> {
  const [row] = await db.sql<{ id: string; sealed_key: string }>(
    `select id, sealed_key from api_keys where account_id = ? and sealed_key is not null and revoked_at is null
        and (?::uuid is null or id = ?::uuid) order by created_at desc limit 1`,
    [accountId, keyId ?? null, keyId ?? null],
  )
  return row ? { id: row.id, key: box.open(row.sealed_key) } : null
}

export async function revokeKey(db: Database, keyId: string, keys: KeyCache, now: Date): Promise<{ id: string; revokedAt: string }> {
  const [row] = await db.sql<{ id: string; revoked_at: string }>(
    `update api_keys set revoked_at = coalesce(revoked_at, ?) where id::text = ? returning id, revoked_at`,
    [now, keyId],
  )
  if (!row) throw new ApiError('not_found', 'No such key.')
  keys.forget(row.id)
  return { id: row.id, revokedAt: new Date(row.revoked_at).toISOString() }
}

/**
 * A new signing secret, `whsec_` + base64 of 24 random bytes (the Standard Webhooks form: its libraries take
 * the secret as given). The previous one keeps signing next to it for 24 hours (webhooks.ts).
 */
export async function rotateWebhookSecret(db: Database, accountId: string, box: SecretBox, now: Date): Promise<{ secret: string }> {
  await getAccount(db, accountId)
  const secret = 'whsec_' + randomBytes(24).toString('base64')
  await db.sql(
    `update accounts set previous_webhook_secret = webhook_secret, webhook_secret = ?, webhook_secret_rotated_at = ? where id = ?`,
    [box.seal(secret), now, accountId],
  )
  return { secret }
}

export const CREDIT_USD = 0.01
const Credits = (description: string) => Type.Integer({ description })

/**
 * GET /v1/account (C14), published as components.schemas.Account: a superset of what the product's official
 * client reads (`balanceCredits`, `creditUsd`, `balanceUsd` as a number, issue 14) plus our own fields.
 */
export const AccountSummary = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    balanceCredits: Credits('= balance'),
    creditUsd: Type.Literal(CREDIT_USD, { description: 'US dollars per credit' }),
    balanceUsd: Type.Number({ description: 'balance × creditUsd, rounded to cents' }),
    balance: Credits('credits on the account, open holds included'),
    reserved: Credits('credits held by calls and jobs in flight'),
    available: Credits('balance − reserved: what the next call can spend'),
    plan: Type.Union(Object.keys(PLANS).map((p) => Type.Literal(p as Plan))),
  },
  { additionalProperties: false },
)

export async function accountSummary(db: Query, accountId: string): Promise<Static<typeof AccountSummary>> {
  const { id, balance, reserved, available, plan } = await getAccount(db, accountId)
  return { id, balanceCredits: balance, creditUsd: CREDIT_USD, balanceUsd: balance / 100, balance, reserved, available, plan }
}

export interface Caller {
  keyId: string
  accountId: string
  mode: KeyMode
}

/** How long a cached key may be served without news from the revocation listener (C9: revocation within 1 s). */
export const REVOCATION_MS = 1000

/**
 * Bearer key → caller, cached so a live call costs no lookup. Revocation (C9) reaches every instance within
 * `REVOCATION_MS`: migration 0013 NOTIFYs `api_key_revoked` for every revoked or deleted key, and `listen()` keeps a
 * connection LISTENing that forgets the key at once. An entry is served past `REVOCATION_MS` only while that
 * connection is known to be current: it answers a ping every `REVOCATION_MS / 4` while keys are being looked up
 * (none in an idle process), and PostgreSQL delivers every notification committed before a query ahead of the
 * query's answer, so an answered ping sent at t means every revocation before t has been applied. Without the
 * listener (lost, not started) entries last `REVOCATION_MS`.
 * Unknown hashes are remembered for `ttlMs`, and a client (its address) with more than `failuresPerMinute`
 * failed lookups gets 429 without a lookup.
 */
export class KeyCache {
  private readonly entries = new Map<string, { caller: Caller; hash: Buffer; until: number; at: number; epoch: number }>()
  private readonly unknown = new Map<string, number>()
  private readonly failures: RateLimiterMemory
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
    this.failures = new RateLimiterMemory({ points: opts.failuresPerMinute ?? 30, duration: 60, keyPrefix: 'auth-failures' })
  }

  async lookup(key: string, client = ''): Promise<Caller | null> {
    this.usedAt = performance.now()
    const hash = hashKey(key)
    const cacheKey = hash.toString('base64')
    const hit = this.entries.get(cacheKey)
    if (hit && this.fresh(hit) && timingSafeEqual(hit.hash, hash)) return hit.caller
    const failed = await this.failures.get(client)
    if (failed && failed.consumedPoints >= this.failures.points) {
      const retry = Math.max(1, Math.ceil(failed.msBeforeNext / 1000))
      throw new ApiError('rate_limited', `Too many failed authentications from this client; retry in ${retry} s.`, undefined, {
        'Retry-After': String(retry),
      })
    }
    const at = performance.now()
    const epoch = this.epoch
    const row = (this.unknown.get(cacheKey) ?? 0) > this.clock() ? undefined : await this.findKey(hash)
    if (!row) {
      this.entries.delete(cacheKey)
      if (this.unknown.size > 10_000) this.unknown.clear()
      this.unknown.set(cacheKey, this.clock() + this.ttlMs)
      await this.failures.penalty(client, 1)
      return null
    }
    const caller: Caller = { keyId: row.id, accountId: row.account_id, mode: row.mode }
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
    const [row] = await this.db.sql<{ id: string; account_id: string; key_hash: Buffer; mode: KeyMode }>(
      `select id, account_id, key_hash, mode from api_keys where key_hash = ? and revoked_at is null`,
      [hash],
    )
    return row && timingSafeEqual(row.key_hash, hash) ? row : undefined
  }

  forget(keyId: string): void {
    for (const [k, v] of this.entries) if (v.caller.keyId === keyId) this.entries.delete(k)
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
