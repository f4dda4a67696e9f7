// Accounts, plans, packs and API keys (C9, C13, C18). Keys are stored as SHA-256 only. Every change is audited in its
// transaction; `acting` says who made it (the system when a caller has no request, e.g. a test fixture).
import { hash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import pg from 'pg'
import { Type, type Static } from '@sinclair/typebox'
import { audit, systemActing, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { KeyPermission } from '../roles.ts'
import type { Caller, KeyMode } from '../http/caller.ts'
import type { SecretBox } from '../secrets.ts'
import { FailedAuthentications } from '../ratelimit.ts'
import { UUID } from '../validation.ts'
import { credit } from '../wallet/wallet.ts'
import { CREDIT_USD } from '../wallet/credit.ts'

export const PLANS = { none: 0, developer: 1900, team: 2500 } as const
export const PACKS = { first: 500, starter: 2000, growth: 10500, scale: 55000 } as const
export type Plan = keyof typeof PLANS
export type Pack = keyof typeof PACKS

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
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

/**
 * A new account and its owner (the email). `signupCredits`: the trial credits of a self-serve sign-up
 * (SIGNUP_CREDITS), granted with the account, so once.
 */
export async function createAccount(
  db: Database,
  input: { email: string; plan?: Plan; signupCredits?: number },
  now: Date,
  acting: Acting = systemActing(now),
): Promise<AccountView> {
  const id = randomUUID()
  const email = input.email.toLowerCase()
  try {
    await db.tx(async (q) => {
      await q.sql(`insert into accounts (id, email, plan, first_pack_used, created_at) values (?, ?, 'none', false, ?)`, [id, email, now])
      const owner = randomUUID()
      await q.sql(`insert into members (id, account_id, email, role, created_at) values (?, ?, ?, 'owner', ?)`, [owner, id, email, now])
      await audit(q, acting, { accountId: id, action: 'account.created', target: { type: 'account', id }, details: { email, owner } })
      if (input.plan && input.plan !== 'none') await applyPlan(q, id, input.plan, now, acting)
      if (input.signupCredits) {
        await credit(q, id, 'adjustment', input.signupCredits, 'sign-up credits', now)
        await audit(q, acting, {
          accountId: id,
          action: 'credits.granted',
          target: { type: 'account', id },
          details: { credits: input.signupCredits, reason: 'sign-up credits' },
        })
      }
    })
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      throw new ApiError('invalid_request', 'An account with this email exists.', [{ path: '/email', message: 'already used' }])
    throw e
  }
  return getAccount(db, id)
}

/** The plan and its first bundle, in the caller's transaction. */
export async function applyPlan(q: Query, accountId: string, plan: Plan, now: Date, acting: Acting): Promise<void> {
  await q.sql(`update accounts set plan = ?, plan_renews_at = ? where id = ?`, [plan, plan === 'none' ? null : nextMonth(now), accountId])
  if (PLANS[plan] > 0) await credit(q, accountId, 'plan_grant', PLANS[plan], `plan ${plan}`, now)
  await audit(q, acting, {
    accountId,
    action: 'plan.changed',
    target: { type: 'account', id: accountId },
    details: { plan, credits: PLANS[plan] },
  })
}

export async function setPlan(
  db: Database,
  accountId: string,
  plan: Plan,
  now: Date,
  acting: Acting = systemActing(now),
): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx((q) => applyPlan(q, accountId, plan, now, acting))
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
      if (!claimed) return
      await credit(q, row.id, 'plan_grant', PLANS[row.plan], `plan ${row.plan} renewal`, now)
      await audit(q, systemActing(now), {
        accountId: row.id,
        action: 'plan.renewed',
        target: { type: 'account', id: row.id },
        details: { plan: row.plan, credits: PLANS[row.plan] },
      })
    })
  }
  return due.length
}

export async function addCredits(
  db: Database,
  accountId: string,
  input: { pack: Pack } | { credits: number; reason: string },
  now: Date,
  acting: Acting = systemActing(now),
): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx(async (q) => {
    if ('pack' in input) {
      await grantPack(q, accountId, input.pack, `pack ${input.pack}`, now)
      await audit(q, acting, {
        accountId,
        action: 'pack.granted',
        target: { type: 'account', id: accountId },
        details: { pack: input.pack, credits: PACKS[input.pack] },
      })
    } else {
      await credit(q, accountId, 'adjustment', input.credits, input.reason, now)
      await audit(q, acting, {
        accountId,
        action: 'credits.granted',
        target: { type: 'account', id: accountId },
        details: { credits: input.credits, reason: input.reason },
      })
    }
  })
  return getAccount(db, accountId)
}

/** A pack's credits in the caller's transaction; the first pack only once per account (C9). The caller audits it. */
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
  /** all: also manages the account through the API; call: capabilities and reads; read: reads only (C18). */
  permissions: KeyPermission
  /** The capabilities the key may call; null: every one. */
  capabilities: string[] | null
  monthlySpendCap: number | null
  createdAt: string
  revokedAt: string | null
}

interface KeyRow {
  id: string
  prefix: string
  name: string | null
  mode: KeyMode
  permissions: KeyPermission
  capabilities: string[] | null
  monthly_spend_cap: string | null
  created_at: string
  revoked_at: string | null
}

const KEY_COLUMNS = 'id, prefix, name, mode, permissions, capabilities, monthly_spend_cap, created_at, revoked_at'

function keyView(k: KeyRow): KeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    mode: k.mode,
    permissions: k.permissions,
    capabilities: k.capabilities,
    monthlySpendCap: k.monthly_spend_cap == null ? null : Number(k.monthly_spend_cap),
    createdAt: new Date(k.created_at).toISOString(),
    revokedAt: k.revoked_at ? new Date(k.revoked_at).toISOString() : null,
  }
}

async function requireTeamForSpendCap(db: Query, accountId: string, spendCap: number | null | undefined) {
  if (spendCap == null) return
  const account = await getAccount(db, accountId)
  if (account.plan !== 'team') throw new ApiError('plan_required', 'Per-key monthly spend caps need the Team plan.')
}

export interface KeyScope {
  permissions?: KeyPermission
  /** An allowlist of capability names (checked against the registry by the route), or null for all. */
  capabilities?: string[] | null
}

/** The account's keys, newest first (revoked ones included). */
export async function listKeys(db: Query, accountId: string): Promise<KeyView[]> {
  const rows = await db.sql<KeyRow>(`select ${KEY_COLUMNS} from api_keys where account_id = ? order by created_at desc, id`, [accountId])
  return rows.map(keyView)
}

/**
 * A new key, shown once. `box`: a test key is also stored sealed with it, so the dashboard can show it again (live
 * keys are only ever stored as a hash).
 */
export async function createKey(
  db: Database,
  accountId: string,
  input: { name?: string; monthlySpendCap?: number | null; mode?: KeyMode } & KeyScope,
  box?: SecretBox,
  acting: Acting = systemActing(new Date()),
): Promise<KeyView & { key: string }> {
  const mode = input.mode ?? 'live'
  await getAccount(db, accountId)
  if (mode === 'test' && input.monthlySpendCap != null)
    throw new ApiError('invalid_request', 'A test key never spends credits, so it takes no spend cap.', [
      { path: '/monthlySpendCap', message: 'not for a test key' },
    ])
  await requireTeamForSpendCap(db, accountId, input.monthlySpendCap)
  const key = mintKey(mode)
  const permissions = input.permissions ?? 'all'
  const capabilities = input.capabilities ?? null
  const created = await db.tx(async (q) => {
    const [row] = await q.sql<KeyRow>(
      `insert into api_keys (id, account_id, name, mode, sealed_key, key_hash, prefix, monthly_spend_cap, permissions, capabilities)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${KEY_COLUMNS}`,
      [
        randomUUID(),
        accountId,
        input.name ?? null,
        mode,
        mode === 'test' && box ? box.seal(key) : null,
        hashKey(key),
        key.slice(0, 12),
        input.monthlySpendCap ?? null,
        permissions,
        capabilities,
      ],
    )
    const view = keyView(row!)
    await audit(q, acting, {
      accountId,
      action: 'key.created',
      target: { type: 'key', id: view.id },
      details: { prefix: view.prefix, name: view.name, mode, permissions, capabilities, monthlySpendCap: view.monthlySpendCap },
    })
    return view
  })
  return { ...created, key }
}

export interface KeyChange extends KeyScope {
  name?: string | null
  monthlySpendCap?: number | null
}

/**
 * Changes a live (unrevoked) key's name, scope or cap; fields left out stay. `accountId`: only a key of that account
 * (the API and the dashboard); the operator names any key.
 */
export async function updateKey(
  db: Database,
  keyId: string,
  input: KeyChange,
  acting: Acting = systemActing(new Date()),
  accountId?: string,
): Promise<KeyView> {
  if (!UUID.test(keyId)) throw new ApiError('not_found', 'No such key.')
  const [current] = await db.sql<KeyRow & { account_id: string }>(
    `select ${KEY_COLUMNS}, account_id from api_keys where id = ? and revoked_at is null and (?::uuid is null or account_id = ?::uuid)`,
    [keyId, accountId ?? null, accountId ?? null],
  )
  if (!current) throw new ApiError('not_found', 'No such key.')
  if (current.mode === 'test' && input.monthlySpendCap != null)
    throw new ApiError('invalid_request', 'A test key never spends credits, so it takes no spend cap.', [
      { path: '/monthlySpendCap', message: 'not for a test key' },
    ])
  if (input.monthlySpendCap !== undefined) await requireTeamForSpendCap(db, current.account_id, input.monthlySpendCap)
  const before = keyView(current)
  const after = {
    name: input.name === undefined ? before.name : input.name,
    permissions: input.permissions ?? before.permissions,
    capabilities: input.capabilities === undefined ? before.capabilities : input.capabilities,
    monthlySpendCap: input.monthlySpendCap === undefined ? before.monthlySpendCap : input.monthlySpendCap,
  }
  const changed = Object.fromEntries(
    (Object.keys(after) as Array<keyof typeof after>)
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
      .map((k) => [k, { from: before[k], to: after[k] }]),
  )
  return db.tx(async (q) => {
    const [row] = await q.sql<KeyRow>(
      `update api_keys set name = ?, permissions = ?, capabilities = ?, monthly_spend_cap = ? where id = ? and revoked_at is null
       returning ${KEY_COLUMNS}`,
      [after.name, after.permissions, after.capabilities, after.monthlySpendCap, keyId],
    )
    if (!row) throw new ApiError('not_found', 'No such key.')
    await audit(q, acting, {
      accountId: current.account_id,
      action: 'key.updated',
      target: { type: 'key', id: keyId },
      details: { prefix: current.prefix, changed },
    })
    return keyView(row)
  })
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

/**
 * Revokes a key (again: nothing changes, nothing is audited). `accountId`: only a live key of that account, else
 * 404 (the API and the dashboard); the operator names any key.
 */
export async function revokeKey(
  db: Database,
  keyId: string,
  keys: KeyCache,
  now: Date,
  acting: Acting = systemActing(now),
  accountId?: string,
): Promise<{ id: string; revokedAt: string }> {
  if (!UUID.test(keyId)) throw new ApiError('not_found', 'No such key.')
  const row = await db.tx(async (q) => {
    // One statement, no row lock outside the money functions' lock order: the update re-checks revoked_at on the
    // row it waited for, so of two concurrent revocations only one revokes (and is audited).
    const [key] = await q.sql<{ id: string; account_id: string; prefix: string; revoked_at: string | null; revoked_now: boolean }>(
      `with target as (
         select id, account_id, prefix, revoked_at from api_keys where id = ? and (?::uuid is null or (account_id = ?::uuid and revoked_at is null))
       ), revoked as (
         update api_keys k set revoked_at = ? from target t where k.id = t.id and k.revoked_at is null returning k.id
       )
       select t.id, t.account_id, t.prefix, t.revoked_at, r.id is not null as revoked_now from target t left join revoked r on r.id = t.id`,
      [keyId, accountId ?? null, accountId ?? null, now],
    )
    if (!key) throw new ApiError('not_found', 'No such key.')
    if (!key.revoked_now) {
      if (key.revoked_at) return { id: key.id, revoked_at: key.revoked_at }
      // Revoked by a concurrent call after this statement's snapshot: read its time.
      const [later] = await q.sql<{ revoked_at: string }>(`select revoked_at from api_keys where id = ?`, [key.id])
      return { id: key.id, revoked_at: later!.revoked_at }
    }
    await audit(q, acting, {
      accountId: key.account_id,
      action: 'key.revoked',
      target: { type: 'key', id: key.id },
      details: { prefix: key.prefix },
    })
    return { id: key.id, revoked_at: now }
  })
  keys.forget(row.id)
  return { id: row.id, revokedAt: new Date(row.revoked_at).toISOString() }
}

/** The columns of an account's signing secret of each mode: a test key's deliveries never use the live one. */
export const WEBHOOK_SECRET_COLUMNS = {
  live: { secret: 'webhook_secret', previous: 'previous_webhook_secret', rotatedAt: 'webhook_secret_rotated_at' },
  test: { secret: 'test_webhook_secret', previous: 'previous_test_webhook_secret', rotatedAt: 'test_webhook_secret_rotated_at' },
} as const satisfies Record<KeyMode, { secret: string; previous: string; rotatedAt: string }>

/**
 * A new signing secret of `mode` (the deliveries of that mode's jobs), `whsec_` + base64 of 24 random bytes (the
 * Standard Webhooks form: its libraries take the secret as given). The previous one keeps signing next to it for
 * 24 hours (webhooks.ts).
 */
export async function rotateWebhookSecret(
  db: Database,
  accountId: string,
  box: SecretBox,
  now: Date,
  acting: Acting = systemActing(now),
  mode: KeyMode = 'live',
): Promise<{ secret: string; livemode: boolean }> {
  await getAccount(db, accountId)
  const secret = 'whsec_' + randomBytes(24).toString('base64')
  const column = WEBHOOK_SECRET_COLUMNS[mode]
  await db.tx(async (q) => {
    // The previous column takes the old value, so RETURNING says whether there was one: no separate row lock
    // outside the money functions' lock order.
    const [before] = await q.sql<{ had: boolean }>(
      `update accounts set ${column.previous} = ${column.secret}, ${column.secret} = ?, ${column.rotatedAt} = ? where id = ?
       returning ${column.previous} is not null as had`,
      [box.seal(secret), now, accountId],
    )
    await audit(q, acting, {
      accountId,
      action: before?.had ? 'webhook_secret.rotated' : 'webhook_secret.created',
      target: { type: 'webhook_secret', id: accountId },
      details: { livemode: mode === 'live' },
    })
  })
  return { secret, livemode: mode === 'live' }
}

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

/** How long a cached key may be served without news from the revocation listener (C9: revocation within 1 s). */
export const REVOCATION_MS = 1000

/**
 * Bearer key → caller, cached so a live call costs no lookup. Revocation (C9) reaches every instance within
 * `REVOCATION_MS`: migration 0013 NOTIFYs `api_key_revoked` for every revoked or deleted key (0020: and a changed scope), and `listen()` keeps a
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
    }>(`select id, account_id, key_hash, mode, permissions, capabilities from api_keys where key_hash = ? and revoked_at is null`, [hash])
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
