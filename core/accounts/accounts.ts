// Accounts, plans, packs and API keys (C9, C13). Keys are stored as SHA-256 only.
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import type { Database, Query } from '../db/database.ts'
import { ApiKeySchema } from '../db/entities.ts'
import { ApiError } from '../errors.ts'
import type { SecretBox } from '../secrets.ts'
import { credit } from '../wallet/wallet.ts'

export const PLANS = { none: 0, developer: 1900, team: 2500 } as const
export const PACKS = { first: 500, starter: 2000, growth: 10500, scale: 55000 } as const
export type Plan = keyof typeof PLANS
export type Pack = keyof typeof PACKS

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const KEY_PREFIX = 'ksk_live_'

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest()
}

function mintKey(): string {
  let secret = ''
  for (let i = 0; i < 32; i++) secret += BASE62[randomInt(62)]
  return KEY_PREFIX + secret
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
  const [row] = await db.sql(`select id, email, plan, balance, reserved from accounts where id::text = ?`, [id])
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

export async function createAccount(db: Database, input: { email: string; plan?: Plan }): Promise<AccountView> {
  const id = randomUUID()
  try {
    await db.tx(async (q) => {
      await q.sql(`insert into accounts (id, email, plan, first_pack_used, created_at) values (?, ?, 'none', false, ?)`, [id, input.email.toLowerCase(), new Date()])
      if (input.plan && input.plan !== 'none') await applyPlan(q, id, input.plan, new Date())
    })
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw new ApiError('invalid_request', 'An account with this email exists.', [{ path: '/email', message: 'already used' }])
    throw e
  }
  return getAccount(db, id)
}

async function applyPlan(q: Query, accountId: string, plan: Plan, now: Date): Promise<void> {
  await q.sql(`update accounts set plan = ?, plan_renews_at = ? where id = ?`, [plan, plan === 'none' ? null : nextMonth(now), accountId])
  if (PLANS[plan] > 0) await credit(q, accountId, 'plan_grant', PLANS[plan], `plan ${plan}`)
}

export async function setPlan(db: Database, accountId: string, plan: Plan): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx((q) => applyPlan(q, accountId, plan, new Date()))
  return getAccount(db, accountId)
}

/** Grants the next period's bundle to every plan whose period has ended (maintenance). */
export async function renewPlans(db: Database, now: Date): Promise<number> {
  const due = await db.sql(`select id, plan from accounts where plan <> 'none' and plan_renews_at <= ?`, [now])
  for (const row of due) {
    await db.tx(async (q) => {
      const [claimed] = await q.sql(
        `update accounts set plan_renews_at = plan_renews_at + interval '1 month' where id = ? and plan_renews_at <= ? returning id`,
        [row.id, now],
      )
      if (claimed) await credit(q, row.id, 'plan_grant', PLANS[row.plan as Plan], `plan ${row.plan} renewal`)
    })
  }
  return due.length
}

export async function addCredits(
  db: Database,
  accountId: string,
  input: { pack: Pack } | { credits: number; reason: string },
): Promise<AccountView> {
  await getAccount(db, accountId)
  await db.tx(async (q) => {
    if ('pack' in input) {
      if (input.pack === 'first') {
        const [row] = await q.sql(`update accounts set first_pack_used = true where id = ? and not first_pack_used returning id`, [accountId])
        if (!row) throw new ApiError('first_pack_used', 'The first pack can be bought once per account.')
      }
      await credit(q, accountId, 'purchase', PACKS[input.pack], `pack ${input.pack}`)
    } else {
      await credit(q, accountId, 'adjustment', input.credits, input.reason)
    }
  })
  return getAccount(db, accountId)
}

export interface KeyView {
  id: string
  prefix: string
  name: string | null
  monthlySpendCap: number | null
}

function keyView(k: { id: string; prefix: string; name?: string | null; monthlySpendCap?: string | null }): KeyView {
  return { id: k.id, prefix: k.prefix, name: k.name ?? null, monthlySpendCap: k.monthlySpendCap == null ? null : Number(k.monthlySpendCap) }
}

async function requireTeamForCap(db: Query, accountId: string, cap: number | null | undefined) {
  if (cap == null) return
  const account = await getAccount(db, accountId)
  if (account.plan !== 'team') throw new ApiError('plan_required', 'Per-key monthly spend caps need the Team plan.')
}

export async function createKey(
  db: Database,
  accountId: string,
  input: { name?: string; monthlySpendCap?: number | null },
): Promise<KeyView & { key: string }> {
  await getAccount(db, accountId)
  await requireTeamForCap(db, accountId, input.monthlySpendCap)
  const key = mintKey()
  const em = db.orm.em.fork()
  const entity = em.create(ApiKeySchema, {
    id: randomUUID(),
    accountId,
    name: input.name ?? null,
    keyHash: hashKey(key),
    prefix: key.slice(0, 12),
    monthlySpendCap: input.monthlySpendCap == null ? null : String(input.monthlySpendCap),
  } as never)
  await em.flush()
  return { ...keyView(entity), key }
}

export async function updateKey(db: Database, keyId: string, input: { monthlySpendCap: number | null }): Promise<KeyView> {
  const em = db.orm.em.fork()
  const entity = await em.findOne(ApiKeySchema, { id: keyId, revokedAt: null })
  if (!entity) throw new ApiError('not_found', 'No such key.')
  await requireTeamForCap(db, entity.accountId, input.monthlySpendCap)
  entity.monthlySpendCap = input.monthlySpendCap == null ? null : String(input.monthlySpendCap)
  await em.flush()
  return keyView(entity)
}

export async function revokeKey(db: Database, keyId: string, keys: KeyCache): Promise<{ id: string; revokedAt: string }> {
  const [row] = await db.sql(`update api_keys set revoked_at = coalesce(revoked_at, now()) where id::text = ? returning id, revoked_at`, [keyId])
  if (!row) throw new ApiError('not_found', 'No such key.')
  keys.forget(row.id)
  return { id: row.id, revokedAt: new Date(row.revoked_at).toISOString() }
}

export async function rotateWebhookSecret(db: Database, accountId: string, box: SecretBox): Promise<{ secret: string }> {
  await getAccount(db, accountId)
  const secret = 'whsec_' + randomBytes(24).toString('base64url')
  await db.sql(`update accounts set webhook_secret = ? where id = ?`, [box.seal(secret), accountId])
  return { secret }
}

/** GET /v1/account (C14): the account view plus the balance in dollars (1 credit = 0.01 USD). */
export async function accountSummary(db: Query, accountId: string) {
  const { balance, reserved, available, plan } = await getAccount(db, accountId)
  return { balance, reserved, available, balanceUsd: (balance / 100).toFixed(2), plan }
}

export interface Caller {
  keyId: string
  accountId: string
}

/**
 * Bearer key → caller, cached for 5 s so a live call costs no lookup; revocation clears the entry here
 * at once and expires it on other instances within 5 s (C9).
 */
export class KeyCache {
  private readonly entries = new Map<string, { caller: Caller; hash: Buffer; until: number }>()
  constructor(
    private readonly db: Query,
    private readonly ttlMs = 5000,
  ) {}

  async lookup(key: string): Promise<Caller | null> {
    const hash = hashKey(key)
    const cacheKey = hash.toString('base64')
    const hit = this.entries.get(cacheKey)
    if (hit && hit.until > Date.now() && timingSafeEqual(hit.hash, hash)) return hit.caller
    const [row] = await this.db.sql(`select id, account_id, key_hash from api_keys where key_hash = ? and revoked_at is null`, [hash])
    if (!row || !timingSafeEqual(row.key_hash, hash)) {
      this.entries.delete(cacheKey)
      return null
    }
    const caller = { keyId: row.id, accountId: row.account_id }
    if (this.entries.size > 10_000) this.entries.clear()
    this.entries.set(cacheKey, { caller, hash, until: Date.now() + this.ttlMs })
    return caller
  }

  forget(keyId: string): void {
    for (const [k, v] of this.entries) if (v.caller.keyId === keyId) this.entries.delete(k)
  }
}
