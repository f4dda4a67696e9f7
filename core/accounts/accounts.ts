// Accounts, plans, packs, balances and the webhook signing secrets (C9, C13). Keys are in keys.ts, the cache that
// serves them to each call in key-cache.ts. Every change is audited in its transaction; `acting` says who made it
// (the system when a caller has no request, e.g. a test fixture).
import { randomBytes, randomUUID } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { audit, systemActing, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { KeyMode } from '../http/caller.ts'
import type { SecretBox } from '../secrets.ts'
import { credit } from '../wallet/wallet.ts'
import { CREDIT_USD } from '../wallet/credit.ts'
import { WEBHOOK_SECRET_COLUMNS } from '../webhooks/webhooks.ts'

export const PLANS = { none: 0, developer: 1900, team: 2500 } as const
export const PACKS = { first: 500, starter: 2000, growth: 10500, scale: 55000 } as const
export type Plan = keyof typeof PLANS
export type Pack = keyof typeof PACKS

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
