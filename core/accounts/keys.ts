// API keys (C9, C18): minted, listed, changed and revoked. Stored as SHA-256 only (a test key the dashboard minted
// also sealed, to show it again). Every change is audited in its transaction.
import { randomInt, randomUUID } from 'node:crypto'
import { audit, systemActing, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { KeyMode } from '../http/caller.ts'
import type { KeyPermission } from '../roles.ts'
import type { SecretBox } from '../secrets.ts'
import { UUID } from '../validation.ts'
import { getAccount } from './accounts.ts'
import { hashKey, type KeyCache } from './key-cache.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const keyPrefix = (mode: KeyMode) => `ksk_${mode}_`

function mintKey(mode: KeyMode): string {
  let secret = ''
  for (let i = 0; i < 32; i++) secret += BASE62[randomInt(62)]
  return keyPrefix(mode) + secret
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
