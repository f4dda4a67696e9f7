// The HTML document every dashboard page is, and the signed-in pages' frame: sidebar, title, notice, error.
import { html, type Html } from './html.ts'

export type Page = 'overview' | 'keys' | 'webhooks' | 'usage' | 'requests' | 'billing'

export interface Frame {
  email: string
  csrf: string
  active: Page
  notice?: string
  error?: string
}

const NAV: [Page, string, string][] = [
  ['overview', 'Overview', '/dashboard'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['webhooks', 'Webhooks', '/dashboard/webhooks'],
  ['usage', 'Usage', '/dashboard/usage'],
  ['requests', 'Requests', '/dashboard/requests'],
  ['billing', 'Billing', '/dashboard/billing'],
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
          ${NAV.map(([page, label, href]) => html`<a href="${href}" class="${page === frame.active ? 'active' : ''}">${label}</a>`)}
        </nav>
        <div class="who">
          <div class="email" title="${frame.email}">${frame.email}</div>
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
