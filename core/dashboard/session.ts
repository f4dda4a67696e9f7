// Dashboard sign-in: a one-time link by email (15 minutes, stored as SHA-256), then a session cookie whose
// id is stored hashed too. Each session carries its CSRF token. The first sign-in of an email opens its
// account (self-serve sign-up) with SIGNUP_CREDITS trial credits (default 0) and a test key (ksk_test_…, sealed so
// the dashboard and /docs can show it), so a first call needs no purchase (issue 30).
import { createHash, randomBytes } from 'node:crypto'
import { createAccount, createKey } from '../accounts/accounts.ts'
import type { Query } from '../db/database.ts'
import type { Services } from '../services.ts'

/** The session cookie's name (HttpOnly, SameSite=Lax, path /dashboard). */
export const SESSION_COOKIE = 'dash_session'
export const LINK_TTL_MS = 15 * 60_000
export const SESSION_TTL_MS = 7 * 24 * 3600_000

const sha256 = (s: string) => createHash('sha256').update(s).digest()
const token = () => randomBytes(32).toString('base64url')

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

/** Uses the link once; returns the new session's cookie value and CSRF token, or null. */
export async function redeemSignInLink(services: Services, secret: string): Promise<{ sessionId: string; accountId: string } | null> {
  const { db } = services
  const [link] = await db.sql<{ email: string }>(
    `update login_links set used_at = ? where token_hash = ? and used_at is null and expires_at > ? returning email`,
    [services.now(), sha256(secret), services.now()],
  )
  if (!link) return null
  const accountId = await accountFor(services, link.email)
  const sessionId = token()
  await db.sql(`insert into dashboard_sessions (id_hash, account_id, csrf_token, expires_at) values (?, ?, ?, ?)`, [
    sha256(sessionId),
    accountId,
    token(),
    new Date(services.now().getTime() + SESSION_TTL_MS),
  ])
  return { sessionId, accountId }
}

async function accountFor(services: Services, email: string): Promise<string> {
  const { db } = services
  const find = async () => (await db.sql(`select id from accounts where email = ?`, [email]))[0]?.id as string | undefined
  const existing = await find()
  if (existing) return existing
  try {
    const { id } = await createAccount(db, { email, signupCredits: services.config.signupCredits }, services.now())
    await createKey(db, id, { name: 'test key (sign-up)', mode: 'test' }, services.secrets)
    return id
  } catch (e) {
    const raced = await find()
    if (raced) return raced
    throw e
  }
}

export interface Session {
  accountId: string
  csrfToken: string
}

export async function loadSession(services: Services, sessionId: string | undefined): Promise<Session | null> {
  if (!sessionId || sessionId.length > 100) return null
  const [row] = await services.db.sql<{ account_id: string; csrf_token: string }>(
    `select account_id, csrf_token from dashboard_sessions where id_hash = ? and expires_at > ?`,
    [sha256(sessionId), services.now()],
  )
  return row ? { accountId: row.account_id, csrfToken: row.csrf_token } : null
}

export async function endSession(services: Services, sessionId: string): Promise<void> {
  await services.db.sql(`delete from dashboard_sessions where id_hash = ?`, [sha256(sessionId)])
}

/** Maintenance: expired or used sign-in links and expired sessions. */
export async function removeExpiredSignIns(db: Query, now: Date): Promise<number> {
  const links = await db.sql(`delete from login_links where expires_at < ? returning 1`, [now])
  const sessions = await db.sql(`delete from dashboard_sessions where expires_at < ? returning 1`, [now])
  return links.length + sessions.length
}
