// Accepting an invitation: its link opens a confirmation naming the account and the role (a link someone else
// forwarded would otherwise sign its reader in unawares); only the POST uses it, so mail scanners cannot.
import type Router from '@koa/router'
import { ssoAccountFor } from '../../sso/settings.ts'
import { acceptInvitation, pendingInvitation } from '../../teams/invitations.ts'
import { body, open } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { page, type Kit } from '../kit.ts'
import { csrfField, document } from '../layout.ts'
import { auditFailedSignIn, openSession, SESSION_COOKIE, SESSION_TTL_MS } from '../session.ts'

const TOKEN = /^[A-Za-z0-9_-]{43}$/

export function invitationRoutes(router: Router, { services, cookieOptions, csrfToken }: Kit): void {
  const gone = (message = 'This invitation has expired, was revoked or was already used. Ask for a new one.') =>
    document(
      'Invitation',
      html`<div class="auth">
        <div class="card auth-card">
          <h1>Invitation</h1>
          <div class="alert" role="alert">${message}</div>
        </div>
      </div>`,
    )
  router.get('/dashboard/invitations/accept', open, async (ctx) => {
    const token = read.query.verify(ctx.query).token ?? ''
    const invitation = TOKEN.test(token) ? await pendingInvitation(services.db, token, services.now()) : null
    if (!invitation) {
      ctx.status = 400
      return page(ctx, gone())
    }
    page(
      ctx,
      document(
        'Invitation',
        html`<div class="auth">
          <div class="card auth-card">
            <div class="brand big"><span class="logo">◆</span> Service</div>
            <h1>Join the account of <span data-testid="invitation-account">${invitation.accountEmail}</span>?</h1>
            <p class="muted">
              As <strong>${invitation.role}</strong>, signed in as ${invitation.email}. If that is not your address, close this page.
            </p>
            <form method="post" action="/dashboard/invitations/accept" class="stack">
              ${csrfField(csrfToken(ctx))}<input type="hidden" name="token" value="${token}" />
              <button class="primary">Accept and sign in</button>
            </form>
          </div>
        </div>`,
      ),
    )
  })
  router.post('/dashboard/invitations/accept', open, async (ctx) => {
    const { token } = read.form.invitation(body(ctx))
    const request = { requestId: ctx.state.requestId as string, ip: ctx.ip }
    const invitation = TOKEN.test(token) ? await pendingInvitation(services.db, token, services.now()) : null
    // An invitation link is a sign-in link: a domain whose single sign-on is enforced signs in through its provider.
    const sso = invitation ? await ssoAccountFor(services.db, invitation.email) : null
    if (invitation && sso?.enforced) {
      await auditFailedSignIn(services, invitation.email, 'sso_enforced', request, sso.accountId)
      ctx.status = 400
      return page(ctx, gone('Your organization signs in with single sign-on: sign in there, and you join the account on the way.'))
    }
    const accepted = invitation ? await acceptInvitation(services.db, token, { ...request, at: services.now() }) : null
    if (!accepted) {
      ctx.status = 400
      return page(ctx, gone())
    }
    const sessionId = await openSession(services, accepted, { method: 'invitation' }, request)
    ctx.cookies.set(SESSION_COOKIE, sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
}
