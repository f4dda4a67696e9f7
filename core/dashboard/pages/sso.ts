// Single sign-on settings: the provider (issuer, client id, client secret, which is never shown again), the email
// domains, the role of people who arrive through it, and whether sign-in links are refused for those domains.
import type Router from '@koa/router'
import { ApiError } from '../../errors.ts'
import { getSso, putSso, removeSso, ssoRedirectUri, type SsoSettings } from '../../sso/settings.ts'
import { JIT_ROLES } from '../../roles.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

export function ssoRoutes(router: Router, { services, origin, allow, acting, frame }: Kit): void {
  router.get('/dashboard/sso', allow('sso.read'), async (ctx) => {
    const { done } = read.query.page(ctx.query)
    const settings = await getSso(services.db, state(ctx).session.accountId, origin())
    page(ctx, ssoPage(await frame(ctx, 'sso', notice(done)), settings, ssoRedirectUri(origin())))
  })
  router.post('/dashboard/sso', allow('sso.write'), async (ctx) => {
    const f = read.form.sso(body(ctx))
    const domains = [
      ...new Set(
        f.domains
          .toLowerCase()
          .split(/[\s,]+/)
          .filter(Boolean),
      ),
    ]
    if (!domains.length) throw new ApiError('invalid_request', 'Name at least one email domain.')
    const secret = f.clientSecret?.trim()
    await putSso(
      services,
      state(ctx).session.accountId,
      {
        issuer: f.issuer.trim(),
        clientId: f.clientId.trim(),
        ...(secret ? { clientSecret: secret } : {}),
        domains,
        defaultRole: f.defaultRole,
        enforced: f.enforced === '1',
      },
      acting(ctx),
      origin(),
    )
    ctx.redirect('/dashboard/sso?done=sso')
  })
  router.post('/dashboard/sso/remove', allow('sso.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await removeSso(services.db, state(ctx).session.accountId, acting(ctx))
    ctx.redirect('/dashboard/sso?done=sso-removed')
  })
}

function ssoPage(frame: Frame, s: SsoSettings | null, redirectUri: string): string {
  const edit = frame.can('sso.write')
  return layout(
    frame,
    'Single sign-on',
    html`<section class="card">
      <p class="muted">
        OpenID Connect (authorization code with PKCE). Register <code data-testid="redirect-uri">${redirectUri}</code> as the redirect URI
        of a confidential client at your identity provider.
      </p>
      ${
        s
          ? html`<p>
              Signing in through <code>${s.issuer}</code> for <strong>${s.domains.join(', ')}</strong>; new people arrive as
              <strong>${s.defaultRole}</strong>.${s.enforced ? ' Sign-in links are refused for these domains.' : ''}
            </p>`
          : html`<p class="empty">Single sign-on is off: everyone signs in with email links.</p>`
      }
      ${
        edit
          ? html`<form method="post" action="/dashboard/sso" class="stack">
                ${csrfField(frame.csrf)}
                <label
                  >Issuer<input name="issuer" required maxlength="500" value="${s?.issuer ?? ''}" placeholder="https://login.example.com"
                /></label>
                <label>Client ID<input name="clientId" required maxlength="255" value="${s?.clientId ?? ''}" /></label>
                <label
                  >Client secret ${s ? html`<span class="muted">(set; leave empty to keep it)</span>` : ''}<input
                    type="password"
                    name="clientSecret"
                    maxlength="1000"
                    autocomplete="off"
                    ${s ? '' : 'required'}
                /></label>
                <label
                  >Email domains<input
                    name="domains"
                    required
                    maxlength="2000"
                    value="${s?.domains.join(', ') ?? ''}"
                    placeholder="example.com"
                /></label>
                <label
                  >Role of new people<select name="defaultRole">
                    ${JIT_ROLES.map((r) => html`<option ${r === (s?.defaultRole ?? 'viewer') ? 'selected' : ''}>${r}</option>`)}
                  </select></label
                >
                <label class="check"
                  ><input type="checkbox" name="enforced" value="1" ${s?.enforced ? 'checked' : ''} /> Refuse sign-in links for these
                  domains</label
                >
                <button class="primary">Save</button>
              </form>
              ${s ? html`<form method="post" action="/dashboard/sso/remove" class="row">${csrfField(frame.csrf)}<button class="danger">Turn off</button></form>` : ''}`
          : ''
      }
    </section>`,
  )
}
