// The two gates of /dashboard: every POST is a form from our own origin carrying a valid CSRF token (the
// session's, or the pre-session cookie's on the sign-in forms), and a signed-in page needs a live session.
import bodyParser from 'koa-bodyparser'
import type { Context, Middleware } from 'koa'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { PRE_SESSION_COOKIE, tokensMatch } from './csrf.ts'
import { loadSession, SESSION_COOKIE, type Session } from './session.ts'

export interface DashState {
  session: Session
  sessionId: string
}

/** The parsed form of a POST (an empty object when there is none). */
export const body = (ctx: Context): unknown => ctx.request.body ?? {}
/** The session `signedIn` put on the context. */
export const state = (ctx: Context): DashState => ctx.state.dash as DashState

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
    const preSession = ctx.path === '/dashboard/login' || ctx.path === '/dashboard/login/verify'
    const expected = preSession ? ctx.cookies.get(PRE_SESSION_COOKIE) : session?.csrfToken
    if (!tokensMatch((body(ctx) as { _csrf?: unknown })._csrf, expected))
      throw new ApiError('invalid_request', 'This form has expired. Go back, reload the page and try again.')
    await next()
  }
}

/** A page for the signed-in: a GET without a session goes to the sign-in page, anything else is 401. */
export function signedIn(services: Services): Middleware {
  return async (ctx, next) => {
    const sessionId = ctx.cookies.get(SESSION_COOKIE)
    const session = await loadSession(services, sessionId)
    if (!session) {
      if (ctx.method === 'GET') return ctx.redirect('/dashboard/login')
      throw new ApiError('unauthorized', 'Your session has ended. Sign in again.')
    }
    ctx.state.dash = { session, sessionId: sessionId! } satisfies DashState
    await next()
  }
}
