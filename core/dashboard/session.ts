// Dashboard sign-in: a one-time link by email (15 minutes, stored as SHA-256), an invitation's link, or the
// account's identity provider; then a session cookie whose id is stored hashed too. A session is one member's: the
// email in one account, with that member's role, read on every request (a changed role applies at once, a removed
// member's sessions end with the row). A link session may switch to another account of the same email; a session
// the identity provider opened stays in its account. Each session carries its CSRF token. The first sign-in of an
// email opens its account (self-serve sign-up) with SIGNUP_CREDITS trial credits (default 0), a test key and its
// live and test webhook signing secrets.
import { createHash, randomBytes } from 'node:crypto'
import { createAccount, rotateWebhookSecret } from '../accounts/accounts.ts'
import { createKey } from '../accounts/keys.ts'
import { KEY_MODES } from '../http/caller.ts'
import { audit, systemActing, type Acting } from '../audit/audit.ts'
import type { Query } from '../db/database.ts'
import type { Services } from '../services.ts'
import type { Role } from '../roles.ts'

/** The session cookie's name (HttpOnly, SameSite=Lax, path /dashboard). */
export const SESSION_COOKIE = 'dash_session'
export const LINK_TTL_MS = 15 * 60_000
export const SESSION_TTL_MS = 7 * 24 * 3600_000

const sha256 = (s: string) => createHash('sha256').update(s).digest()
const token = () => randomBytes(32).toString('base64url')

/** The request a sign-in happens in, for its audit entry. */
export interface SignInRequest {
  requestId: string
  ip: string
}

export async function sendSignInLink(services: Services, email: string, origin: string): Promise<void> {
  const secret = token()
  await services.db.sql(`insert into login_links (token_hash, email, expires_at) values (?, ?, ?)`, [
    sha256(secret),
    email.toLowerCase(),
    new Date(services.now().getTime() + LINK_TTL_MS),
  ])
  const link = `${origin}/dashboard/login/verify?token=${secret}`
  await services.mailer.send(
    email,
    'Your sign-in link',
    `Sign in to your dashboard with this link (valid for 15 minutes, once):\n\n${link}\n\nIf you did not ask for it, ignore this email.`,
  )
}

/** The email a live link signs in to, without using it up (the confirmation page names it); null when none. */
export async function signInLinkEmail(services: Services, secret: string): Promise<string | null> {
  const [link] = await services.db.sql<{ email: string }>(
    `select email from login_links where token_hash = ? and used_at is null and expires_at > ?`,
    [sha256(secret), services.now()],
  )
  return link?.email ?? null
}

/**
 * Uses the link once and opens a session in the email's most recently used account (a new account for a new
 * email). A known link that is used up or expired is a failed sign-in, audited in each account of its email.
 */
export async function redeemSignInLink(services: Services, secret: string, request: SignInRequest): Promise<{ sessionId: string } | null> {
  const { db } = services
  const now = services.now()
  const [link] = await db.sql<{ email: string }>(
    `update login_links set used_at = ? where token_hash = ? and used_at is null and expires_at > ? returning email`,
    [now, sha256(secret), now],
  )
  if (!link) {
    const [stale] = await db.sql<{ email: string; used: boolean }>(
      `select email, used_at is not null as used from login_links where token_hash = ?`,
      [sha256(secret)],
    )
    if (stale) await auditFailedSignIn(services, stale.email, stale.used ? 'link_used' : 'link_expired', request)
    return null
  }
  const member = await memberFor(services, link.email, request)
  return { sessionId: await openSession(services, member, { method: 'link' }, request) }
}

/**
 * A failed sign-in of `email`: one entry in each of its accounts, and in `alsoIn` (the account whose enforced single
 * sign-on refused it). An unknown email refused by nobody has no account to tell.
 */
export async function auditFailedSignIn(
  services: Services,
  email: string,
  reason: string,
  request: SignInRequest,
  alsoIn?: string,
): Promise<void> {
  await services.db.tx(async (q) => {
    const members = await q.sql<{ account_id: string; id: string | null }>(
      `select account_id, id from members where email = ?
       union select ?::uuid, null where ?::uuid is not null and not exists (select 1 from members where email = ? and account_id = ?::uuid)`,
      [email, alsoIn ?? null, alsoIn ?? null, email, alsoIn ?? null],
    )
    for (const m of members)
      await audit(q, signInActing(services, request), {
        accountId: m.account_id,
        action: 'sign_in.failed',
        target: { type: 'member', id: m.id },
        details: { email, reason },
      })
  })
}

const signInActing = (services: Services, request: SignInRequest): Acting => ({
  ...systemActing(services.now(), request.requestId),
  ip: request.ip,
})

export interface SessionMember {
  accountId: string
  memberId: string
  email: string
}

/** The membership a link signs in to: the one last used, or a new account (self-serve sign-up). */
async function memberFor(services: Services, email: string, request: SignInRequest): Promise<SessionMember> {
  const { db } = services
  const find = async () =>
    (
      await db.sql<{ account_id: string; id: string }>(
        `select account_id, id from members where email = ? order by last_sign_in_at desc nulls last, created_at limit 1`,
        [email],
      )
    )[0]
  const existing = await find()
  if (existing) return { accountId: existing.account_id, memberId: existing.id, email }
  try {
    const acting = signInActing(services, request)
    const { id } = await createAccount(db, { email, signupCredits: services.config.signupCredits }, services.now(), acting)
    await createKey(db, id, { name: 'test key (sign-up)', mode: 'test', permissions: 'call' }, services.secrets, acting)
    // Callbacks are only sent signed: a new account can receive them at once (its Webhooks page reveals the secrets).
    for (const mode of KEY_MODES) await rotateWebhookSecret(db, id, services.secrets, services.now(), acting, mode)
  } catch (e) {
    if (!(await find())) throw e // another request signed the same email up meanwhile
  }
  const created = (await find())!
  return { accountId: created.account_id, memberId: created.id, email }
}

/**
 * A new session of `member`, its sign-in recorded on the member and in the audit log in one transaction.
 * `ssoAccountId`: the identity provider's account, where the session then stays.
 */
export async function openSession(
  services: Services,
  member: SessionMember,
  how: { method: 'link' | 'invitation' | 'sso'; ssoAccountId?: string },
  request: SignInRequest,
): Promise<string> {
  const sessionId = token()
  const now = services.now()
  await services.db.tx(async (q) => {
    const [row] = await q.sql<{ role: Role }>(`update members set last_sign_in_at = ? where id = ? returning role`, [now, member.memberId])
    await q.sql(
      `insert into dashboard_sessions (id_hash, account_id, member_id, email, sso_account_id, csrf_token, expires_at) values (?, ?, ?, ?, ?, ?, ?)`,
      [
        sha256(sessionId),
        member.accountId,
        member.memberId,
        member.email,
        how.ssoAccountId ?? null,
        token(),
        new Date(now.getTime() + SESSION_TTL_MS),
      ],
    )
    await audit(
      q,
      {
        actor: { type: 'member', id: member.memberId, email: member.email, role: row!.role },
        requestId: request.requestId,
        ip: request.ip,
        at: now,
      },
      {
        accountId: member.accountId,
        action: 'member.signed_in',
        target: { type: 'member', id: member.memberId },
        details: { method: how.method },
      },
    )
  })
  return sessionId
}

export interface Session {
  accountId: string
  memberId: string
  email: string
  role: Role
  csrfToken: string
  /** The account whose identity provider opened the session (it stays there); null for a link or invitation. */
  ssoAccountId: string | null
}

export async function loadSession(services: Services, sessionId: string | undefined): Promise<Session | null> {
  if (!sessionId || sessionId.length > 100) return null
  const [row] = await services.db.sql<{
    account_id: string
    member_id: string
    email: string
    role: Role
    csrf_token: string
    sso_account_id: string | null
  }>(
    `select s.account_id, s.member_id, s.email, m.role, s.csrf_token, s.sso_account_id
       from dashboard_sessions s join members m on m.id = s.member_id where s.id_hash = ? and s.expires_at > ?`,
    [sha256(sessionId), services.now()],
  )
  return row
    ? {
        accountId: row.account_id,
        memberId: row.member_id,
        email: row.email,
        role: row.role,
        csrfToken: row.csrf_token,
        ssoAccountId: row.sso_account_id,
      }
    : null
}

export interface Membership {
  accountId: string
  /** The account's own email (its first owner's), which names it in the switcher. */
  accountEmail: string
  role: Role
}

/** The accounts a session may switch to: every account of its email, or only the provider's for an SSO session. */
export async function memberships(db: Query, session: Session): Promise<Membership[]> {
  const rows = await db.sql<{ account_id: string; account_email: string; role: Role }>(
    `select m.account_id, a.email as account_email, m.role from members m join accounts a on a.id = m.account_id
      where m.email = ? and (?::uuid is null or m.account_id = ?::uuid) order by a.email, m.account_id`,
    [session.email, session.ssoAccountId, session.ssoAccountId],
  )
  return rows.map((r) => ({ accountId: r.account_id, accountEmail: r.account_email, role: r.role }))
}

/** Moves the session to the same email's membership in `accountId`; false when there is none it may use. */
export async function switchAccount(
  services: Services,
  sessionId: string,
  session: Session,
  accountId: string,
  acting: Acting,
): Promise<boolean> {
  const target = (await memberships(services.db, session)).find((m) => m.accountId === accountId)
  if (!target) return false
  await services.db.tx(async (q) => {
    const [member] = await q.sql<{ id: string; role: Role }>(`select id, role from members where account_id = ? and email = ?`, [
      accountId,
      session.email,
    ])
    if (!member) return
    await q.sql(`update dashboard_sessions set account_id = ?, member_id = ? where id_hash = ?`, [accountId, member.id, sha256(sessionId)])
    await q.sql(`update members set last_sign_in_at = ? where id = ?`, [acting.at, member.id])
    await audit(
      q,
      { ...acting, actor: { ...acting.actor, id: member.id, role: member.role } },
      {
        accountId,
        action: 'session.switched',
        target: { type: 'member', id: member.id },
        details: { from: session.accountId },
      },
    )
  })
  return true
}

export async function endSession(services: Services, sessionId: string, acting: Acting, accountId: string): Promise<void> {
  await services.db.tx(async (q) => {
    await q.sql(`delete from dashboard_sessions where id_hash = ?`, [sha256(sessionId)])
    await audit(q, acting, { accountId, action: 'member.signed_out', target: { type: 'member', id: acting.actor.id } })
  })
}

/** Maintenance: expired or used sign-in links, expired sessions and single sign-on flows. */
export async function removeExpiredSignIns(db: Query, now: Date): Promise<number> {
  const links = await db.sql(`delete from login_links where expires_at < ? returning 1`, [now])
  const sessions = await db.sql(`delete from dashboard_sessions where expires_at < ? returning 1`, [now])
  const flows = await db.sql(`delete from sso_flows where expires_at < ? returning 1`, [now])
  return links.length + sessions.length + flows.length
}
