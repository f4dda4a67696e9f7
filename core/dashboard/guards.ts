// The gates of /dashboard: every POST is a form from our own origin carrying a valid CSRF token (the session's,
// or the pre-session cookie's on the sign-in forms), and a signed-in page needs a live session whose member's role
// may do what the route does (C18); a role that may not is refused with 403, whatever the method.
import bodyParser from 'koa-bodyparser'
import type { Context, Middleware } from 'koa'
import type { Acting } from '../audit/audit.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { roleMay, type RoleAction } from '../roles.ts'
import { PRE_SESSION_COOKIE, tokensMatch } from './csrf.ts'
import { loadSession, SESSION_COOKIE, type Session } from './session.ts'

export interface DashState {
  session: Session
  sessionId: string
}

/** The parsed form of a POST (an empty object when there is none). */
export const body = (ctx: Context): unknown => ctx.request.body ?? {}
/** The session `allow` put on the context. */
export const state = (ctx: Context): DashState => ctx.state.dash as DashState

/** The paths whose forms are sent before there is a session (their CSRF token is the pre-session cookie's). */
export const PRE_SESSION_FORMS = new Set([
  '/dashboard/login',
  '/dashboard/login/verify',
  '/dashboard/invitations/accept',
  '/dashboard/sso/start',
])

export function formGuard(services: Services, origin: () => string): Middleware {
  const parseForm = bodyParser({
    enableTypes: ['form'],
    formLimit: '16kb',
    onerror: () => {
      throw new ApiError('invalid_request', 'The form could not be read.')
    },
  })
  return async (ctx, next) => {
    if (ctx.method !== 'POST') {
      await next()
      return
    }
    // A browser names the page a form was sent from; it must be one of ours, origin compared exactly.
    const from = ctx.get('Origin')
    if (from && from !== origin())
      throw new ApiError(
        'invalid_request',
        `This form was sent from ${from.slice(0, 100)}; this dashboard is ${origin()} (DASHBOARD_URL). Open it there.`,
      )
    await parseForm(ctx, async () => {})
    const session = await loadSession(services, ctx.cookies.get(SESSION_COOKIE))
    const expected = PRE_SESSION_FORMS.has(ctx.path) ? ctx.cookies.get(PRE_SESSION_COOKIE) : session?.csrfToken
    if (!tokensMatch((body(ctx) as { _csrf?: unknown })._csrf, expected))
      throw new ApiError('invalid_request', 'This form has expired. Go back, reload the page and try again.')
    await next()
  }
}

/** A route guard that says what it guards: the role × action tests read `action` off each route's middleware. */
export type RoleGuard = Middleware & { action: RoleAction | 'public' }

/**
 * A page or form for the signed-in whose role may do `action`: without a session a GET goes to the sign-in page and
 * anything else is 401; a role that may not is 403 permission_denied.
 */
export function allow(services: Services, action: RoleAction): RoleGuard {
  const guard: Middleware = async (ctx, next) => {
    const sessionId = ctx.cookies.get(SESSION_COOKIE)
    const session = await loadSession(services, sessionId)
    if (!session) {
      if (ctx.method === 'GET') return ctx.redirect('/dashboard/login')
      throw new ApiError('unauthorized', 'Your session has ended. Sign in again.')
    }
    if (!roleMay(session.role, action))
      throw new ApiError('permission_denied', `Your role in this account (${session.role}) may not do this. Ask an owner or an admin.`)
    ctx.state.dash = { session, sessionId: sessionId! } satisfies DashState
    await next()
  }
  return Object.assign(guard, { action })
}

/** A route anyone may reach (the sign-in pages, the stylesheet): marked so, so a route without a guard is visible. */
export const open: RoleGuard = Object.assign<Middleware, { action: 'public' }>((_ctx, next) => next(), { action: 'public' })

/** A change made in the dashboard: the signed-in member is the actor. */
export function memberActing(ctx: Context, now: Date): Acting {
  const { session } = state(ctx)
  return {
    actor: { type: 'member', id: session.memberId, email: session.email, role: session.role },
    requestId: ctx.state.requestId as string,
    ip: ctx.ip,
    at: now,
  }
}
