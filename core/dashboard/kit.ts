// What every page module of pages/ is given: the services, the dashboard's public origin, its cookie rule, the
// role guard and the frame of a signed-in page. A page registers its routes with these and renders its view.
import type { Context } from 'koa'
import { getAccount } from '../accounts/accounts.ts'
import type { Acting } from '../audit/audit.ts'
import { publicOrigin } from '../config.ts'
import type { Services } from '../services.ts'
import { roleMay, type RoleAction } from '../roles.ts'
import { preSessionToken } from './csrf.ts'
import { allow, memberActing, state, type RoleGuard } from './guards.ts'
import type { Frame, Page } from './layout.ts'
import { memberships } from './session.ts'

export interface Kit {
  services: Services
  /** The public origin: links in emails and Stripe redirects never take their host from the request (Host header poisoning). */
  origin: () => string
  /** The options of the dashboard's cookies (Secure when the dashboard is served over https). */
  cookieOptions: (ctx: Context) => { httpOnly: true; sameSite: 'lax'; secure: boolean; path: string; overwrite: true }
  /** The pre-session CSRF token of the sign-in forms. */
  csrfToken: (ctx: Context) => string
  /** The guard of a signed-in route: the session's role may do `action` (C18), else 403. */
  allow: (action: RoleAction) => RoleGuard
  /** The signed-in member as the actor of a change. */
  acting: (ctx: Context) => Acting
  frame: (ctx: Context, active: Page, extra?: { notice?: string; error?: string }) => Promise<Frame>
}

// A Map: a notice name comes from the query string, and a plain object would answer `constructor` too.
const NOTICES = new Map<string, string>([
  ['revoked', 'The key is revoked. Calls with it are refused from now on.'],
  ['cap', 'The monthly spend cap is saved.'],
  ['checkout-done', 'Payment received. Credits appear as soon as Stripe confirms it, usually within seconds.'],
  ['checkout-cancelled', 'Checkout cancelled; nothing was charged.'],
  ['cancelled', 'Your plan is cancelled. Credits already granted stay on your balance.'],
  ['recharge', 'Auto-recharge settings saved.'],
  ['scope', 'The key’s permissions are saved. Its next call uses them.'],
  ['invited', 'Invitation sent. The link in it works once, for 7 days.'],
  ['invitation-revoked', 'The invitation is revoked; its link no longer works.'],
  ['role', 'The role is changed. It applies at once.'],
  ['removed', 'The member is removed and signed out.'],
  ['sso', 'Single sign-on settings saved.'],
  ['sso-removed', 'Single sign-on is off. Everyone signs in with email links.'],
  ['switched', 'You are now in this account.'],
  ['pinged', 'A ping event is on its way to the endpoint; see it in Events.'],
  ['endpoint-updated', 'The endpoint is saved.'],
  ['endpoint-deleted', 'The endpoint is deleted; it receives nothing more.'],
  ['resent', 'The event is sent again, with the same webhook-id.'],
  ['alerts', 'Alert settings saved.'],
  ['reviewed', 'The review is completed; the reviewed result is saved.'],
  ['review-settings', 'Review settings saved. They apply to the next call.'],
])

/** The notice a redirect after a change asks for (`?done=`), from the page's own query schema. */
export const notice = (done: string | undefined) => {
  const text = done ? NOTICES.get(done) : undefined
  return text ? { notice: text } : {}
}

export const page = (ctx: Context, body: string) => {
  ctx.type = 'html'
  ctx.body = body
}

export function dashboardKit(services: Services): Kit {
  const origin = () => publicOrigin(services.config)
  // Secure whenever the public URL is https (a TLS-terminating proxy may speak plain http to us), or the
  // connection itself is (TRUST_PROXY_HOPS and X-Forwarded-Proto).
  const secureCookies = (ctx: Context) => {
    const secure = ctx.secure || origin().startsWith('https:')
    if (secure) ctx.cookies.secure = true // the cookies module refuses a Secure cookie on a connection it thinks is plain
    return secure
  }
  return {
    services,
    origin,
    cookieOptions: (ctx) => ({
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: secureCookies(ctx),
      path: '/dashboard',
      overwrite: true,
    }),
    csrfToken: (ctx) => preSessionToken(ctx, secureCookies(ctx)),
    allow: (action) => allow(services, action),
    acting: (ctx) => memberActing(ctx, services.now()),
    frame: async (ctx, active, extra = {}) => {
      const { session } = state(ctx)
      const account = await getAccount(services.db, session.accountId)
      return {
        email: session.email,
        accountEmail: account.email,
        accountId: session.accountId,
        role: session.role,
        can: (action: RoleAction) => roleMay(session.role, action),
        accounts: await memberships(services.db, session),
        csrf: session.csrfToken,
        active,
        ...extra,
      }
    },
  }
}
