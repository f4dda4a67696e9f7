// Sign-in by emailed link, its confirmation, switching accounts, and sign-out. The link opens a confirmation form
// naming the account it signs in to (a link someone else sent you would sign you in to their account: login CSRF);
// only its POST signs in, so mail scanners cannot use it up. An email whose domain's single sign-on is enforced is
// sent to its identity provider instead (pages/sso-sign-in.ts).
import type Router from '@koa/router'
import type { Context } from 'koa'
import { ApiError } from '../../errors.ts'
import { body, open, state } from '../guards.ts'
import { html } from '../html.ts'
import { EMAIL, read } from '../inputs.ts'
import { page, type Kit } from '../kit.ts'
import { csrfField, document } from '../layout.ts'
import { ssoAccountFor } from '../../sso/settings.ts'
import {
  auditFailedSignIn,
  endSession,
  redeemSignInLink,
  sendSignInLink,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  signInLinkEmail,
  switchAccount,
} from '../session.ts'
import { startSsoRedirect } from './sso-sign-in.ts'

const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/

export function signInRoutes(router: Router, kit: Kit): void {
  const { services, origin, cookieOptions, csrfToken, allow, acting } = kit
  const request = (ctx: Context) => ({ requestId: ctx.state.requestId as string, ip: ctx.ip })
  router.get('/dashboard/login', open, (ctx) => {
    read.query.none(ctx.query)
    page(ctx, signInPage(csrfToken(ctx)))
  })
  router.post('/dashboard/login', open, async (ctx) => {
    const email = read.form.login(body(ctx)).email.trim().toLowerCase()
    if (!EMAIL.test(email) || email.length > 254) {
      ctx.status = 400
      return page(ctx, signInPage(csrfToken(ctx), { error: 'Enter a valid email address.' }))
    }
    // Per minute; RATE_LIMITS can override both like any endpoint's limit.
    const limits = services.config.rateLimits
    const perEmail = await services.limiter.consume('dashboard-login-email', email, limits['dashboard-login-email'] ?? 3)
    const perAddress = await services.limiter.consume('dashboard-login-ip', ctx.ip, limits['dashboard-login-ip'] ?? 10)
    if (!perEmail.allowed || !perAddress.allowed) {
      ctx.set('Retry-After', String(Math.max(perEmail.resetSeconds, perAddress.resetSeconds)))
      throw new ApiError('rate_limited', 'Too many sign-in links were requested. Wait a minute, then try again.')
    }
    // Enforced single sign-on: no link for this domain; its people go to their identity provider.
    const sso = await ssoAccountFor(services.db, email)
    if (sso?.enforced) return startSsoRedirect(ctx, kit, email)
    await sendSignInLink(services, email, origin())
    page(ctx, signInPage(csrfToken(ctx), { sent: true }))
  })
  const expiredLink = (ctx: Context) => {
    ctx.status = 400
    page(ctx, signInPage(csrfToken(ctx), { error: 'This sign-in link has expired or was already used. Ask for a new one.' }))
  }
  router.get('/dashboard/login/verify', open, async (ctx) => {
    const token = read.query.verify(ctx.query).token ?? ''
    const email = LINK_TOKEN.test(token) ? await signInLinkEmail(services, token) : null
    if (!email) return expiredLink(ctx)
    page(ctx, verifyPage(csrfToken(ctx), token, email))
  })
  router.post('/dashboard/login/verify', open, async (ctx) => {
    const { token } = read.form.verify(body(ctx))
    const email = LINK_TOKEN.test(token) ? await signInLinkEmail(services, token) : null
    // A link sent before single sign-on was enforced for its domain no longer signs in.
    const sso = email ? await ssoAccountFor(services.db, email) : null
    if (email && sso?.enforced) {
      await auditFailedSignIn(services, email, 'sso_enforced', request(ctx), sso.accountId)
      ctx.status = 400
      return page(ctx, signInPage(csrfToken(ctx), { error: 'Your organization signs in with single sign-on. Use the button below.' }))
    }
    const redeemed = LINK_TOKEN.test(token) ? await redeemSignInLink(services, token, request(ctx)) : null
    if (!redeemed) return expiredLink(ctx)
    ctx.cookies.set(SESSION_COOKIE, redeemed.sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
  router.post('/dashboard/switch', allow('account.read'), async (ctx) => {
    const { accountId } = read.form.switchAccount(body(ctx))
    const { session, sessionId } = state(ctx)
    if (!(await switchAccount(services, sessionId, session, accountId, acting(ctx))))
      throw new ApiError('not_found', 'You are not a member of that account, or this session may not leave its account.')
    ctx.redirect('/dashboard?done=switched')
  })
  router.post('/dashboard/logout', allow('account.read'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { session, sessionId } = state(ctx)
    await endSession(services, sessionId, acting(ctx), session.accountId)
    ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 })
    ctx.redirect('/dashboard/login')
  })
}

function signInPage(csrf: string, shown: { sent?: boolean; error?: string } = {}): string {
  return document(
    'Sign in',
    html`<div class="auth">
      <div class="card auth-card">
        <div class="brand big"><span class="logo">◆</span> Service</div>
        ${
          shown.sent
            ? html`<h1>Check your email</h1>
                <p class="muted">If the address is valid, a sign-in link is on its way. It works once, for 15 minutes.</p>
                <p><a href="/dashboard/login">Use another address</a></p>`
            : html`<h1>Sign in</h1>
                <p class="muted">We will email you a one-time link. New here? The same link opens your account.</p>
                ${shown.error ? html`<div class="alert" role="alert">${shown.error}</div>` : ''}
                <form method="post" action="/dashboard/login" class="stack">
                  ${csrfField(csrf)}
                  <label>Email<input type="email" name="email" required maxlength="254" autocomplete="email" autofocus /></label>
                  <button class="primary">Email me a sign-in link</button>
                  <button class="link" formaction="/dashboard/sso/start">Sign in with single sign-on</button>
                </form>`
        }
      </div>
    </div>`,
  )
}

/** The confirmation a sign-in link opens: it names the account, so nobody is signed in to someone else's unawares. */
function verifyPage(csrf: string, token: string, email: string): string {
  return document(
    'Sign in',
    html`<div class="auth">
      <div class="card auth-card">
        <div class="brand big"><span class="logo">◆</span> Service</div>
        <h1>Sign in as <span data-testid="sign-in-email">${email}</span>?</h1>
        <p class="muted">This link signs you in to the account of ${email}. If that is not your address, close this page.</p>
        <form method="post" action="/dashboard/login/verify" class="stack">
          ${csrfField(csrf)}<input type="hidden" name="token" value="${token}" />
          <button class="primary">Sign in as ${email}</button>
        </form>
      </div>
    </div>`,
  )
}
