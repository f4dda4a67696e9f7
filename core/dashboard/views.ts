// Dashboard pages. Pure functions from data to Html; every value passes through the escaping `html` tag.
import { PACKS, PLANS, type Pack, type Plan } from '../accounts/accounts.ts'
import { PACK_PRICE_CENTS, PLAN_PRICE_CENTS, RECHARGE_PACKS } from '../billing/billing.ts'
import type { DailyTotal, LedgerEntry, UsageFilter } from '../usage/usage.ts'
import { html, trusted, type Html } from './html.ts'

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

const credits = (n: number) => n.toLocaleString('en-US')
const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: cents % 100 ? 2 : 0, maximumFractionDigits: 2 })}`
const when = (d: string | Date) => new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'
const title = (s: string) => s[0]!.toUpperCase() + s.slice(1)
const planName = (p: Plan) => (p === 'none' ? 'Pay as you go' : `${title(p)} plan`)

function document(pageTitle: string, body: Html): string {
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

export function signInPage(csrf: string, state: { sent?: boolean; error?: string } = {}): string {
  return document(
    'Sign in',
    html`<div class="auth">
      <div class="card auth-card">
        <div class="brand big"><span class="logo">◆</span> Service</div>
        ${
          state.sent
            ? html`<h1>Check your email</h1>
                <p class="muted">If the address is valid, a sign-in link is on its way. It works once, for 15 minutes.</p>
                <p><a href="/dashboard/login">Use another address</a></p>`
            : html`<h1>Sign in</h1>
                <p class="muted">We will email you a one-time link. New here? The same link opens your account.</p>
                ${state.error ? html`<div class="alert" role="alert">${state.error}</div>` : ''}
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
export function verifyPage(csrf: string, token: string, email: string): string {
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

export function messagePage(status: number, message: string, back: string): string {
  return document(
    'Something went wrong',
    html`<div class="auth">
      <div class="card auth-card">
        <div class="brand big"><span class="logo">◆</span> Service</div>
        <h1>${status === 429 ? 'Slow down' : status === 404 ? 'Not found' : status === 403 ? 'Request refused' : 'That did not work'}</h1>
        <p>${message}</p>
        <p><a class="button" href="${back}">Go back</a></p>
      </div>
    </div>`,
  )
}

export interface OverviewData {
  balance: number
  reserved: number
  available: number
  plan: Plan
  daily: DailyTotal[]
  today: Date
}

export function overviewPage(frame: Frame, d: OverviewData): string {
  const total30 = d.daily.reduce((s, x) => s + x.credits, 0)
  const calls30 = d.daily.reduce((s, x) => s + x.calls, 0)
  return layout(
    frame,
    'Overview',
    html`<div class="stats">
        <div class="card stat">
          <div class="label">Balance</div>
          <div class="value">${credits(d.balance)}</div>
          <div class="sub">credits · ${usd(d.balance)}</div>
        </div>
        <div class="card stat">
          <div class="label">Available</div>
          <div class="value">${credits(d.available)}</div>
          <div class="sub">balance minus holds</div>
        </div>
        <div class="card stat">
          <div class="label">Reserved</div>
          <div class="value">${credits(d.reserved)}</div>
          <div class="sub">held by running calls and jobs</div>
        </div>
        <div class="card stat">
          <div class="label">Plan</div>
          <div class="value small">${planName(d.plan)}</div>
          <div class="sub">
            ${d.plan === 'none' ? html`<a href="/dashboard/billing">Compare plans</a>` : `${credits(PLANS[d.plan])} credits a month`}
          </div>
        </div>
      </div>
      <section class="card">
        <div class="card-head">
          <h2>Last 30 days</h2>
          <div class="muted">${credits(total30)} credits · ${credits(calls30)} calls</div>
        </div>
        ${usageChart(d.daily, d.today)}
      </section>`,
  )
}

const PALETTE = ['#4f46e5', '#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#8b5cf6', '#94a3b8']

/** Stacked bars per UTC day, one colour per endpoint (the six largest; the rest as "other"). */
export function usageChart(daily: DailyTotal[], today: Date): Html {
  const days: string[] = []
  for (let i = 29; i >= 0; i--) days.push(new Date(today.getTime() - i * 86400_000).toISOString().slice(0, 10))
  const byEndpoint = new Map<string, number>()
  for (const x of daily) byEndpoint.set(x.endpoint, (byEndpoint.get(x.endpoint) ?? 0) + x.credits)
  const top = [...byEndpoint.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([e]) => e)
  const series = byEndpoint.size > top.length ? [...top, 'other'] : top
  const colour = (e: string) => PALETTE[series.indexOf(e)] ?? PALETTE[6]!
  const stacks = new Map<string, Map<string, number>>()
  for (const x of daily) {
    const key = top.includes(x.endpoint) ? x.endpoint : 'other'
    const day = stacks.get(x.date) ?? new Map<string, number>()
    day.set(key, (day.get(key) ?? 0) + x.credits)
    stacks.set(x.date, day)
  }
  const max = Math.max(1, ...[...stacks.values()].map((m) => [...m.values()].reduce((s, v) => s + v, 0)))
  const W = 900,
    H = 220,
    left = 44,
    bottom = 24,
    top0 = 10
  const plotH = H - bottom - top0
  const bw = (W - left) / days.length
  let svg = ''
  for (const frac of [0, 0.5, 1]) {
    const y = top0 + plotH * (1 - frac)
    svg += `<line x1="${left}" x2="${W}" y1="${y}" y2="${y}" class="grid"/><text x="${left - 6}" y="${y + 4}" class="axis" text-anchor="end">${Math.round(max * frac)}</text>`
  }
  days.forEach((day, i) => {
    let y = top0 + plotH
    for (const e of series) {
      const v = stacks.get(day)?.get(e) ?? 0
      if (!v) continue
      const h = (v / max) * plotH
      y -= h
      svg += `<rect x="${(left + i * bw + 2).toFixed(1)}" y="${y.toFixed(1)}" width="${(bw - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour(e)}"><title>${e.replace(/[^a-z0-9-]/g, '')} · ${day}: ${v} credits</title></rect>`
    }
    if (i % 5 === 4 || i === 29)
      svg += `<text x="${(left + i * bw + bw / 2).toFixed(1)}" y="${H - 6}" class="axis" text-anchor="middle">${day.slice(5)}</text>`
  })
  return html`<figure class="chart">
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Credits spent per day over the last 30 days">${trusted(svg)}</svg>
    ${series.length ? html`<figcaption class="legend">${series.map((e) => html`<span><i style="background:${colour(e)}"></i>${e}</span>`)}</figcaption>` : html`<figcaption class="muted empty">No charged calls in the last 30 days.</figcaption>`}
  </figure>`
}

export interface KeyRow {
  id: string
  prefix: string
  name: string | null
  mode: 'live' | 'test'
  /** A test key the dashboard can show again (sealed). */
  revealable: boolean
  monthlySpendCap: number | null
  monthSpend: number
  createdAt: string
  revokedAt: string | null
}

export function keysPage(
  frame: Frame,
  keys: KeyRow[],
  plan: Plan,
  created?: { key: string; name: string | null; mode: 'live' | 'test'; revealed?: boolean },
): string {
  const active = keys.filter((k) => !k.revokedAt)
  const revoked = keys.filter((k) => k.revokedAt)
  return layout(
    frame,
    'API keys',
    html`${
        created
          ? html`<section class="card reveal" id="new-key">
              <h2>${created.revealed ? 'Your test key' : 'Your new key'}${created.name ? html` “${created.name}”` : ''}</h2>
              ${
                created.mode === 'test'
                  ? html`<p>
                      A test key: calls answer the endpoint's example, never charge and never call a model. You can show it again here.
                    </p>`
                  : html`<p>Copy it now: it is shown <strong>only once</strong>. We store a hash, so it cannot be shown again.</p>`
              }
              <code class="secret" data-testid="new-key">${created.key}</code>
            </section>`
          : ''
      }
      <section class="card">
        <div class="card-head"><h2>Create a key</h2></div>
        <form method="post" action="/dashboard/keys" class="row">
          ${csrfField(frame.csrf)}
          <label>Name<input name="name" maxlength="200" placeholder="e.g. production" /></label>
          <label
            >Mode<select name="mode">
              <option value="live">Live (spends credits)</option>
              <option value="test">Test (free, example answers)</option>
            </select></label
          >
          ${plan === 'team' ? html`<label>Monthly spend cap <span class="muted">(credits, optional)</span><input name="monthlySpendCap" inputmode="numeric" pattern="[0-9]*" /></label>` : ''}
          <button class="primary">Create key</button>
        </form>
        ${plan === 'team' ? '' : html`<p class="muted small">Per-key monthly spend caps come with the <a href="/dashboard/billing">Team plan</a>.</p>`}
      </section>
      <section class="card">
        <div class="card-head">
          <h2>Active keys</h2>
          <div class="muted">${active.length}</div>
        </div>
        ${
          active.length
            ? html`<table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Key</th>
                    <th>Mode</th>
                    <th>Created</th>
                    <th>Spent this month</th>
                    ${plan === 'team' ? html`<th>Monthly cap</th>` : ''}
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${active.map(
                    (k) =>
                      html`<tr data-key-id="${k.id}">
                        <td>${k.name ?? html`<span class="muted">unnamed</span>`}</td>
                        <td><code>${k.prefix}…</code></td>
                        <td><span class="pill ${k.mode === 'test' ? 'pending' : 'on'}">${k.mode}</span></td>
                        <td>${when(k.createdAt)}</td>
                        <td>${credits(k.monthSpend)}</td>
                        ${
                          plan === 'team'
                            ? html`<td>
                                <form method="post" action="/dashboard/keys/${k.id}/cap" class="inline">
                                  ${csrfField(frame.csrf)}<input
                                    name="monthlySpendCap"
                                    value="${k.monthlySpendCap ?? ''}"
                                    placeholder="none"
                                    inputmode="numeric"
                                    pattern="[0-9]*"
                                    aria-label="Monthly cap"
                                  /><button>Save</button>
                                </form>
                              </td>`
                            : ''
                        }
                        <td class="right">
                          ${k.revealable ? html`<form method="post" action="/dashboard/keys/${k.id}/reveal" class="inline">${csrfField(frame.csrf)}<button>Show</button></form>` : ''}
                          <form method="post" action="/dashboard/keys/${k.id}/revoke" class="inline">
                            ${csrfField(frame.csrf)}<button class="danger">Revoke</button>
                          </form>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted empty">No active keys. Create one to call the API.</p>`
        }
      </section>
      ${
        revoked.length
          ? html`<section class="card">
              <div class="card-head"><h2>Revoked keys</h2></div>
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Key</th>
                    <th>Revoked</th>
                  </tr>
                </thead>
                <tbody>
                  ${revoked.map(
                    (k) =>
                      html`<tr class="revoked">
                        <td>${k.name ?? 'unnamed'}</td>
                        <td><code>${k.prefix}…</code></td>
                        <td>${when(k.revokedAt!)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </section>`
          : ''
      }`,
  )
}

export interface DeliveryRow {
  id: string
  jobId: string
  endpoint: string
  /** A test key's job (issue 30) is marked, so its deliveries are not taken for live ones. */
  mode: 'live' | 'test'
  event: string
  url: string
  status: string
  attempts: number
  lastStatusCode: number | null
  updatedAt: string
}

export function webhooksPage(
  frame: Frame,
  d: { hasSecret: boolean; secret?: string; rotated?: boolean; deliveries: DeliveryRow[] },
): string {
  return layout(
    frame,
    'Webhooks',
    html`<section class="card">
        <div class="card-head"><h2>Signing secret</h2></div>
        <p class="muted">
          Callbacks of async jobs are signed with this secret (headers <code>X-Service-Signature</code> and <code>webhook-signature</code>).
          Verify them before trusting a payload.
        </p>
        ${
          d.secret
            ? html`<code class="secret" data-testid="webhook-secret">${d.secret}</code
                >${d.rotated ? html`<p class="small">New secret in effect. Update your receivers: deliveries from now on use it.</p>` : ''}`
            : d.hasSecret
              ? html`<code class="secret masked">whsec_••••••••••••••••••••••••</code>`
              : html`<p class="empty">No secret yet: callbacks are recorded but not sent until you create one.</p>`
        }
        <div class="row">
          ${d.hasSecret && !d.secret ? html`<form method="post" action="/dashboard/webhooks/reveal">${csrfField(frame.csrf)}<button>Reveal</button></form>` : ''}
          <form method="post" action="/dashboard/webhooks/rotate">
            ${csrfField(frame.csrf)}<button class="${d.hasSecret ? 'warn' : 'primary'}">
              ${d.hasSecret ? 'Rotate secret' : 'Create secret'}
            </button>
          </form>
        </div>
      </section>
      <section class="card">
        <div class="card-head">
          <h2>Recent deliveries</h2>
          <div class="muted">latest 25</div>
        </div>
        ${
          d.deliveries.length
            ? html`<table>
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Job</th>
                    <th>Event</th>
                    <th>URL</th>
                    <th>Status</th>
                    <th>Attempts</th>
                  </tr>
                </thead>
                <tbody>
                  ${d.deliveries.map(
                    (x) =>
                      html`<tr>
                        <td>${when(x.updatedAt)}</td>
                        <td>
                          <code>${x.endpoint}</code> <span class="muted small">${x.jobId.slice(0, 8)}</span>
                          ${x.mode === 'test' ? html`<span class="pill pending">test</span>` : ''}
                        </td>
                        <td>${x.event}</td>
                        <td class="url">${x.url}</td>
                        <td><span class="pill ${x.status}">${x.status}${x.lastStatusCode ? ` · ${x.lastStatusCode}` : ''}</span></td>
                        <td>${x.attempts}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted empty">No deliveries yet. Send an async call with a <code>callbackUrl</code> to see them here.</p>`
        }
      </section>`,
  )
}

export function usagePage(
  frame: Frame,
  d: {
    filter: UsageFilter & { fromText?: string; toText?: string }
    entries: LedgerEntry[]
    nextCursor?: string
    keys: { id: string; label: string }[]
    endpoints: string[]
    query: URLSearchParams
  },
): string {
  const next = new URLSearchParams(d.query)
  if (d.nextCursor) next.set('cursor', d.nextCursor)
  const csv = new URLSearchParams(d.query)
  csv.delete('cursor')
  return layout(
    frame,
    'Usage',
    html`<section class="card">
        <form method="get" action="/dashboard/usage" class="row filters">
          <label
            >Endpoint<select name="endpoint">
              <option value="">All endpoints</option>
              ${d.endpoints.map((e) => html`<option ${e === d.filter.endpoint ? 'selected' : ''}>${e}</option>`)}
            </select></label
          >
          <label
            >Key<select name="keyId">
              <option value="">All keys</option>
              ${d.keys.map((k) => html`<option value="${k.id}" ${k.id === d.filter.keyId ? 'selected' : ''}>${k.label}</option>`)}
            </select></label
          >
          <label>From<input type="date" name="from" value="${d.filter.fromText ?? ''}" /></label>
          <label>To<input type="date" name="to" value="${d.filter.toText ?? ''}" /></label>
          <button>Apply</button>
          <a class="button" href="/dashboard/usage.csv?${csv.toString()}">Export CSV</a>
        </form>
      </section>
      <section class="card">
        ${
          d.entries.length
            ? html`<table class="ledger">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Type</th>
                      <th>Detail</th>
                      <th class="right">Credits</th>
                      <th class="right">Balance after</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${d.entries.map(
                      (e) =>
                        html`<tr>
                          <td>${when(e.createdAt)}</td>
                          <td><span class="pill ${e.kind}">${KIND[e.kind]}</span></td>
                          <td>
                            ${e.endpoint ? html`<code>${e.endpoint}</code> <span class="muted small">${e.requestId}</span>` : (e.reference ?? '')}
                          </td>
                          <td class="right ${e.amount < 0 ? 'neg' : 'pos'}">${e.amount > 0 ? '+' : ''}${credits(e.amount)}</td>
                          <td class="right">${credits(e.balanceAfter)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
                ${d.nextCursor ? html`<p class="right"><a class="button" href="/dashboard/usage?${next.toString()}">Older entries →</a></p>` : ''}`
            : html`<p class="muted empty">No ledger entries match.</p>`
        }
      </section>`,
  )
}

const KIND: Record<LedgerEntry['kind'], string> = {
  charge: 'Charge',
  purchase: 'Purchase',
  plan_grant: 'Plan credits',
  adjustment: 'Adjustment',
}

export interface BillingData {
  stripe: boolean
  plan: Plan
  hasSubscription: boolean
  firstPackUsed: boolean
  hasCard: boolean
  autoRecharge: { threshold: number; pack: string } | null
  balance: number
}

export function billingPage(frame: Frame, d: BillingData): string {
  const packs = (Object.keys(PACKS) as Pack[]).filter((p) => p !== 'first' || !d.firstPackUsed)
  const buy = (field: string, value: string, label: string, cls = 'primary') =>
    d.stripe
      ? html`<form method="post" action="/dashboard/billing/checkout">
          ${csrfField(frame.csrf)}<input type="hidden" name="${field}" value="${value}" /><button class="${cls}">${label}</button>
        </form>`
      : ''
  return layout(
    frame,
    'Billing',
    html`${d.stripe ? '' : html`<div class="notice">Purchases on this service are made by the operator. Contact them to buy credits or change your plan.</div>`}
      <section class="card">
        <div class="card-head">
          <h2>Credit packs</h2>
          <div class="muted" data-testid="balance">Balance: ${credits(d.balance)} credits</div>
        </div>
        <div class="tiles">
          ${packs.map(
            (p) =>
              html`<div class="tile ${p === 'first' ? 'highlight' : ''}" data-pack="${p}">
                <div class="tile-name">${p === 'first' ? 'First pack' : title(p)}</div>
                <div class="tile-price">${usd(PACK_PRICE_CENTS[p])}</div>
                <div class="tile-credits">${credits(PACKS[p])} credits</div>
                <div class="muted small">
                  ${p === 'first' ? 'Once per account' : p === 'growth' ? '5% bonus' : p === 'scale' ? '10% bonus' : '1 credit = 1¢'}
                </div>
                ${buy('pack', p, 'Buy')}
              </div>`,
          )}
        </div>
      </section>
      <section class="card">
        <div class="card-head">
          <h2>Monthly plan</h2>
          <div class="muted">Current: ${planName(d.plan)}</div>
        </div>
        <div class="tiles">
          ${(['developer', 'team'] as const).map(
            (p) =>
              html`<div class="tile ${d.plan === p ? 'current' : ''}">
                <div class="tile-name">${title(p)}</div>
                <div class="tile-price">${usd(PLAN_PRICE_CENTS[p])}<span class="muted small"> / month</span></div>
                <div class="tile-credits">${credits(PLANS[p])} credits every month</div>
                <div class="muted small">${p === 'team' ? 'Per-key monthly spend caps' : 'For one developer'}</div>
                ${d.plan === p ? html`<div class="pill current">Current plan</div>` : d.hasSubscription ? '' : buy('plan', p, 'Subscribe')}
              </div>`,
          )}
        </div>
        ${
          d.stripe && d.hasSubscription
            ? html`<form method="post" action="/dashboard/billing/cancel" class="row">
                ${csrfField(frame.csrf)}<button class="danger">Cancel plan</button
                ><span class="muted small">Credits already granted stay yours.</span>
              </form>`
            : ''
        }
      </section>
      <section class="card">
        <div class="card-head">
          <h2>Auto-recharge</h2>
          <div class="muted">${d.autoRecharge ? html`<span class="pill on">On</span>` : html`<span class="pill">Off</span>`}</div>
        </div>
        <p class="muted">
          When your available credits fall below the threshold after a call, we charge your saved card for the pack you choose, once per
          crossing.
        </p>
        ${
          !d.stripe
            ? ''
            : !d.hasCard
              ? html`<p class="empty">Buy a pack by card first: auto-recharge uses the card saved with that purchase.</p>`
              : html`<form method="post" action="/dashboard/billing/auto-recharge" class="row">
                    ${csrfField(frame.csrf)}
                    <label
                      >When available falls below<input
                        name="threshold"
                        required
                        inputmode="numeric"
                        pattern="[0-9]*"
                        value="${d.autoRecharge?.threshold ?? 500}"
                    /></label>
                    <label
                      >Buy<select name="pack">
                        ${RECHARGE_PACKS.map((p) => html`<option value="${p}" ${d.autoRecharge?.pack === p ? 'selected' : ''}>${title(p)} · ${usd(PACK_PRICE_CENTS[p])}</option>`)}
                      </select></label
                    >
                    <button class="primary">${d.autoRecharge ? 'Save' : 'Turn on'}</button>
                  </form>
                  ${d.autoRecharge ? html`<form method="post" action="/dashboard/billing/auto-recharge" class="row">${csrfField(frame.csrf)}<input type="hidden" name="off" value="1" /><button>Turn off</button></form>` : ''}`
        }
      </section>`,
  )
}
