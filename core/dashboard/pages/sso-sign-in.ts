// Signing in through the account's identity provider (C18): the sign-in form's "single sign-on" button (or an email
// whose domain enforces it) starts the flow, and the provider sends the browser back to the callback, which opens a
// session that stays in that account. core/sso/flow.ts does the checks and audits a refusal.
import type Router from '@koa/router'
import type { Context } from 'koa'
import { ApiError } from '../../errors.ts'
import { finishSso, FLOW_COOKIE, FLOW_TTL_MS, startSso } from '../../sso/flow.ts'
import { body, open } from '../guards.ts'
import { EMAIL, read } from '../inputs.ts'
import type { Kit } from '../kit.ts'
import { messagePage } from '../error-page.ts'
import { openSession, SESSION_COOKIE, SESSION_TTL_MS } from '../session.ts'

/** Sends the browser to the provider of `email`'s domain, binding the flow to this browser with a cookie. */
export async function startSsoRedirect(ctx: Context, { services, origin, cookieOptions }: Kit, email: string): Promise<void> {
  const { url, browser } = await startSso(services, email, origin())
  ctx.cookies.set(FLOW_COOKIE, browser, { ...cookieOptions(ctx), path: '/dashboard/sso', maxAge: FLOW_TTL_MS })
  ctx.status = 303
  ctx.redirect(url)
}

export function ssoSignInRoutes(router: Router, kit: Kit): void {
  const { services, origin, cookieOptions } = kit
  router.post('/dashboard/sso/start', open, async (ctx) => {
    const email = read.form.ssoStart(body(ctx)).email.trim().toLowerCase()
    if (!EMAIL.test(email)) throw new ApiError('invalid_request', 'Enter your work email address.')
    await startSsoRedirect(ctx, kit, email)
  })
  router.get('/dashboard/sso/callback', open, async (ctx) => {
    const request = { requestId: ctx.state.requestId as string, ip: ctx.ip }
    // The URL the provider redirected to, as registered (the public origin), with the provider's parameters.
    const callback = new URL(`${origin()}/dashboard/sso/callback?${ctx.querystring.slice(0, 4096)}`)
    const outcome = await finishSso(services, callback, ctx.cookies.get(FLOW_COOKIE), request)
    ctx.cookies.set(FLOW_COOKIE, '', { ...cookieOptions(ctx), path: '/dashboard/sso', maxAge: 0 })
    if (!outcome.ok) {
      ctx.status = 400
      ctx.type = 'html'
      ctx.body = messagePage(400, outcome.message, '/dashboard/login')
      return
    }
    const sessionId = await openSession(services, outcome, { method: 'sso', ssoAccountId: outcome.accountId }, request)
    ctx.cookies.set(SESSION_COOKIE, sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
}
