// Webhooks: the live and the test signing secret (masked, revealed on request, rotated) and the latest deliveries
// with their status (a skipped one with why).
import type Router from '@koa/router'
import type { Context } from 'koa'
import { rotateWebhookSecret } from '../../accounts/accounts.ts'
import { type KeyMode } from '../../http/caller.ts'
import type { Query } from '../../db/database.ts'
import { audit } from '../../audit/audit.ts'
import { ApiError } from '../../errors.ts'
import { when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'
import { WEBHOOK_SECRET_COLUMNS } from '../../webhooks/webhooks.ts'

export function webhooksRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  const { db } = services
  const webhooks = async (ctx: Context, shown?: Shown, done?: string) => {
    const { accountId } = state(ctx).session
    const [account] = await db.sql<{ live: boolean; test: boolean }>(
      `select webhook_secret is not null as live, test_webhook_secret is not null as test from accounts where id = ?`,
      [accountId],
    )
    const deliveries = await deliveryRows(db, accountId)
    page(ctx, webhooksPage(await frame(ctx, 'webhooks', notice(done)), { hasSecret: account!, deliveries, ...(shown ? { shown } : {}) }))
  }
  router.get('/dashboard/webhooks', allow('webhooks.read'), (ctx) => {
    return webhooks(ctx, undefined, read.query.page(ctx.query).done)
  })
  router.post('/dashboard/webhooks/reveal', allow('webhooks.write'), async (ctx) => {
    const mode = read.form.webhookSecret(body(ctx)).mode ?? 'live'
    const { accountId } = state(ctx).session
    const column = WEBHOOK_SECRET_COLUMNS[mode].secret
    const [row] = await db.sql<{ secret: string | null }>(`select ${column} as secret from accounts where id = ?`, [accountId])
    if (!row?.secret) throw new ApiError('not_found', 'There is no signing secret yet.')
    // Showing a secret is not a change, but who saw it is worth knowing.
    await audit(db, acting(ctx), {
      accountId,
      action: 'webhook_secret.revealed',
      target: { type: 'webhook_secret', id: accountId },
      details: { livemode: mode === 'live' },
    })
    await webhooks(ctx, { mode, secret: services.secrets.open(row.secret) })
  })
  router.post('/dashboard/webhooks/rotate', allow('webhooks.write'), async (ctx) => {
    const mode = read.form.webhookSecret(body(ctx)).mode ?? 'live'
    const { secret } = await rotateWebhookSecret(db, state(ctx).session.accountId, services.secrets, services.now(), acting(ctx), mode)
    await webhooks(ctx, { mode, secret, rotated: true })
  })
}

/** A secret shown on this page view only: just made, or revealed. */
type Shown = { mode: KeyMode; secret: string; rotated?: boolean }

interface DeliveryRow {
  id: string
  jobId: string
  endpoint: string
  /** A test key's job (issue 30) is marked, so its deliveries are not taken for live ones. */
  mode: 'live' | 'test'
  event: string
  url: string
  status: string
  reason: string | null
  attempts: number
  lastStatusCode: number | null
  updatedAt: string
}

/** The account's 25 latest deliveries with the status code of each one's last attempt. */
async function deliveryRows(db: Query, accountId: string): Promise<DeliveryRow[]> {
  const rows = await db.sql<{
    id: string
    job_id: string
    endpoint: string
    event: string
    url: string
    status: string
    reason: string | null
    attempts: number
    updated_at: string
    last_code: number | null
    mode: 'live' | 'test'
  }>(
    `select d.id, d.job_id, j.endpoint, j.mode, d.event, d.url, d.status, d.reason, d.attempts, d.updated_at,
            (select a.status_code from webhook_attempts a where a.delivery_id = d.id order by a.attempt desc limit 1) as last_code
       from webhook_deliveries d join jobs j on j.id = d.job_id
      where d.account_id = ? order by d.created_at desc limit 25`,
    [accountId],
  )
  return rows.map((r) => ({
    id: r.id,
    jobId: r.job_id,
    endpoint: r.endpoint,
    mode: r.mode,
    event: r.event,
    url: r.url,
    status: r.status,
    reason: r.reason,
    attempts: Number(r.attempts),
    lastStatusCode: r.last_code == null ? null : Number(r.last_code),
    updatedAt: new Date(r.updated_at).toISOString(),
  }))
}

function webhooksPage(frame: Frame, d: { hasSecret: Record<KeyMode, boolean>; shown?: Shown; deliveries: DeliveryRow[] }): string {
  const secretCard = (mode: KeyMode) => {
    const has = d.hasSecret[mode]
    const shown = d.shown?.mode === mode ? d.shown : undefined
    const modeField = html`<input type="hidden" name="mode" value="${mode}" />`
    return html`<section class="card" data-mode="${mode}">
      <div class="card-head"><h2>${mode === 'live' ? 'Live signing secret' : 'Test signing secret'}</h2></div>
      <p class="muted">
        ${
          mode === 'live'
            ? html`Callbacks of live keys' async jobs are signed with this secret (headers <code>X-Service-Signature</code> and
                <code>webhook-signature</code>). Verify them before trusting a payload.`
            : html`Callbacks of test keys' (<code>ksk_test_…</code>) jobs are signed with this one instead, and say
                <code>"livemode": false</code>: the live secret never verifies a test event.`
        }
      </p>
      ${
        shown
          ? html`<code class="secret" data-testid="webhook-secret">${shown.secret}</code
              >${shown.rotated ? html`<p class="small">New secret in effect. Update your receivers: deliveries from now on use it.</p>` : ''}`
          : has
            ? html`<code class="secret masked">whsec_••••••••••••••••••••••••</code>`
            : html`<p class="empty">No secret yet: these callbacks are recorded as skipped, not sent, until you create one.</p>`
      }
      ${
        frame.can('webhooks.write')
          ? html`<div class="row">
              ${
                has && !shown
                  ? html`<form method="post" action="/dashboard/webhooks/reveal">
                      ${csrfField(frame.csrf)}${modeField}<button>Reveal</button>
                    </form>`
                  : ''
              }
              <form method="post" action="/dashboard/webhooks/rotate">
                ${csrfField(frame.csrf)}${modeField}<button class="${has ? 'warn' : 'primary'}">
                  ${has ? 'Rotate secret' : 'Create secret'}
                </button>
              </form>
            </div>`
          : ''
      }
    </section>`
  }
  return layout(
    frame,
    'Webhooks',
    html`${secretCard('live')}${secretCard('test')}
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
                        <td>
                          <span class="pill ${x.status}">${x.status}${x.lastStatusCode ? ` · ${x.lastStatusCode}` : ''}</span>
                          ${x.reason ? html`<div class="small muted">${x.reason}</div>` : ''}
                        </td>
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
