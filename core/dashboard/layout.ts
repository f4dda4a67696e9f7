// The HTML document every dashboard page is, and the signed-in pages' frame: sidebar, title, notice, error.
import type { Role, RoleAction } from '../roles.ts'
import { html, type Html } from './html.ts'
import type { Membership } from './session.ts'

export type Page =
  | 'overview'
  | 'keys'
  | 'webhooks'
  | 'endpoints'
  | 'events'
  | 'alerts'
  | 'usage'
  | 'requests'
  | 'batches'
  | 'reviews'
  | 'billing'
  | 'team'
  | 'audit'
  | 'sso'

export interface Frame {
  /** The signed-in member's email. */
  email: string
  /** The account's own email, which names it. */
  accountEmail: string
  accountId: string
  role: Role
  /** Whether the member's role may do `action`: a page shows only the buttons its viewer may use. */
  can: (action: RoleAction) => boolean
  /** The accounts the session may switch to (the switcher shows when there are several). */
  accounts: Membership[]
  csrf: string
  active: Page
  notice?: string
  error?: string
}

/** Each page of the navigation, its address, and what its viewer's role must be able to do to see it. */
const NAV: [Page, string, string, RoleAction][] = [
  ['overview', 'Overview', '/dashboard', 'account.read'],
  ['keys', 'API keys', '/dashboard/keys', 'keys.read'],
  ['webhooks', 'Webhooks', '/dashboard/webhooks', 'webhooks.read'],
  ['endpoints', 'Endpoints', '/dashboard/endpoints', 'webhooks.read'],
  ['events', 'Events', '/dashboard/events', 'webhooks.read'],
  ['alerts', 'Alerts', '/dashboard/alerts', 'billing.read'],
  ['usage', 'Usage', '/dashboard/usage', 'usage.read'],
  ['requests', 'Requests', '/dashboard/requests', 'requests.read'],
  ['batches', 'Batches', '/dashboard/batches', 'requests.read'],
  ['reviews', 'Reviews', '/dashboard/reviews', 'reviews.read'],
  ['billing', 'Billing', '/dashboard/billing', 'billing.read'],
  ['team', 'Team', '/dashboard/team', 'members.read'],
  ['audit', 'Audit log', '/dashboard/audit', 'audit.read'],
  ['sso', 'Single sign-on', '/dashboard/sso', 'sso.read'],
]

export function document(pageTitle: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${pageTitle} · Service dashboard</title>
        <link rel="stylesheet" href="/dashboard/assets/app.css" />
      </head>
      <body>
        ${body}
      </body>
    </html>`.value
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}" />`

export function layout(frame: Frame, pageTitle: string, content: Html): string {
  return document(
    pageTitle,
    html`<div class="shell">
      <aside class="sidebar">
        <a class="brand" href="/dashboard"><span class="logo">◆</span> Service</a>
        <nav>
          ${NAV.filter(([, , , action]) => frame.can(action)).map(
            ([page, label, href]) => html`<a href="${href}" class="${page === frame.active ? 'active' : ''}">${label}</a>`,
          )}
        </nav>
        <div class="who">
          ${accountSwitcher(frame)}
          <div class="email" title="${frame.email}">${frame.email}</div>
          <div class="muted small" data-testid="role">${frame.role}</div>
          <form method="post" action="/dashboard/logout">${csrfField(frame.csrf)}<button class="link">Sign out</button></form>
        </div>
      </aside>
      <main>
        <h1>${pageTitle}</h1>
        ${frame.notice ? html`<div class="notice" role="status">${frame.notice}</div>` : ''}
        ${frame.error ? html`<div class="alert" role="alert">${frame.error}</div>` : ''} ${content}
      </main>
    </div>`,
  )
}

/** The account switcher: one form listing every account of the member's email; absent with one account. */
function accountSwitcher(frame: Frame) {
  if (frame.accounts.length < 2) return html`<div class="muted small" title="${frame.accountEmail}">Account: ${frame.accountEmail}</div>`
  return html`<form method="post" action="/dashboard/switch" class="switcher">
    ${csrfField(frame.csrf)}
    <label
      >Account<select name="accountId" aria-label="Account">
        ${frame.accounts.map(
          (a) =>
            html`<option value="${a.accountId}" ${a.accountId === frame.accountId ? 'selected' : ''}>
              ${a.accountEmail} (${a.role})
            </option>`,
        )}
      </select></label
    ><button>Switch</button>
  </form>`
}
