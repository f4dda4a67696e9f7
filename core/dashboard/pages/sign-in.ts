// Sign-in by emailed link, its confirmation, and sign-out. The link opens a confirmation form naming the account
// it signs in to (a link someone else sent you would sign you in to their account: login CSRF); only its POST
// signs in, so mail scanners cannot use it up.
import type Router from '@koa/router'
import type { Context } from 'koa'
import { ApiError } from '../../errors.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { page, type Kit } from '../kit.ts'
import { csrfField, document } from '../layout.ts'
import { endSession, redeemSignInLink, sendSignInLink, SESSION_COOKIE, SESSION_TTL_MS, signInLinkEmail } from '../session.ts'

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,60}$/
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/

export function signInRoutes(router: Router, { services, origin, cookieOptions, csrfToken, signedIn }: Kit): void {
  router.get('/dashboard/login', (ctx) => {
    read.query.none(ctx.query)
    page(ctx, signInPage(csrfToken(ctx)))
  })
  router.post('/dashboard/login', async (ctx) => {
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
    await sendSignInLink(services, email, origin())
    page(ctx, signInPage(csrfToken(ctx), { sent: true }))
  })
  const expiredLink = (ctx: Context) => {
    ctx.status = 400
    page(ctx, signInPage(csrfToken(ctx), { error: 'This sign-in link has expired or was already used. Ask for a new one.' }))
  }
  router.get('/dashboard/login/verify', async (ctx) => {
    const token = read.query.verify(ctx.query).token ?? ''
    const email = LINK_TOKEN.test(token) ? await signInLinkEmail(services, token) : null
    if (!email) return expiredLink(ctx)
    page(ctx, verifyPage(csrfToken(ctx), token, email))
  })
  router.post('/dashboard/login/verify', async (ctx) => {
    const { token } = read.form.verify(body(ctx))
    const redeemed = LINK_TOKEN.test(token) ? await redeemSignInLink(services, token) : null
    if (!redeemed) return expiredLink(ctx)
    ctx.cookies.set(SESSION_COOKIE, redeemed.sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
  router.post('/dashboard/logout', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await endSession(services, state(ctx).sessionId)
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
