// CSRF: every state-changing dashboard request carries `_csrf` in its form body. Signed-in forms use the
// session's token; the sign-in forms (no session yet) use a double-submit cookie. Compared in constant time.
import { randomBytes } from 'node:crypto'
import type { Context } from 'koa'
import { secretsEqual } from '../secrets.ts'

export const PRE_SESSION_COOKIE = 'dash_csrf'

export function tokensMatch(sent: unknown, expected: string | undefined): boolean {
  if (typeof sent !== 'string' || !expected) return false
  return secretsEqual(sent, expected)
}

/** The pre-session token: the cookie's value, set now if absent (`secure`: the dashboard's cookie rule). */
export function preSessionToken(ctx: Context, secure: boolean): string {
  let value = ctx.cookies.get(PRE_SESSION_COOKIE)
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
    value = randomBytes(32).toString('base64url')
    ctx.cookies.set(PRE_SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, path: '/dashboard', overwrite: true })
  }
  return value
}
