// Endpoints: the account's webhook endpoints (C17): register one (its secret shown once), send a ping, rotate the
// secret (shown once; the previous one signs beside it for 24 h), disable or enable, delete.
import type Router from '@koa/router'
import type { Context } from 'koa'
import {
  createEndpoint,
  deleteEndpoint,
  EndpointInput,
  listEndpoints,
  pingEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from '../../events/endpoints.ts'
import { checkCallbackUrl } from '../../webhooks/webhooks.ts'
import { inputReader } from '../../validation.ts'
import { when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

/** The API's own schema checks the form, so the dashboard and the API accept the same endpoints. */
const checkEndpoint = inputReader(EndpointInput, 'body')

export function endpointsRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  const { db } = services
  const show = async (ctx: Context, shown?: Shown, done?: string) => {
    const endpoints = await listEndpoints(db, state(ctx).session.accountId)
    page(ctx, endpointsPage(await frame(ctx, 'endpoints', notice(done)), { endpoints, ...(shown ? { shown } : {}) }))
  }
  router.get('/dashboard/endpoints', allow('webhooks.read'), (ctx) => show(ctx, undefined, read.query.page(ctx.query).done))
  // Rendered in this response, never redirected: the secret is shown once.
  router.post('/dashboard/endpoints', allow('webhooks.write'), async (ctx) => {
    const form = read.form.endpoint(body(ctx))
    const events = (form.events ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    const input = checkEndpoint({
      url: form.url.trim(),
      ...(events.length ? { events } : {}),
      ...(form.description ? { description: form.description } : {}),
    })
    await checkCallbackUrl(input.url, services, 'url')
    const created = await createEndpoint(db, services.secrets, state(ctx).session.accountId, input, acting(ctx))
    await show(ctx, { id: created.id, secret: created.secret })
  })
  router.post('/dashboard/endpoints/:id/rotate', allow('webhooks.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { secret } = await rotateEndpointSecret(db, services.secrets, state(ctx).session.accountId, ctx.params.id!, acting(ctx))
    await show(ctx, { id: ctx.params.id!, secret, rotated: true })
  })
  router.post('/dashboard/endpoints/:id/test', allow('webhooks.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await pingEndpoint(db, state(ctx).session.accountId, ctx.params.id!, acting(ctx))
    ctx.redirect('/dashboard/endpoints?done=pinged')
  })
  router.post('/dashboard/endpoints/:id/enabled', allow('webhooks.write'), async (ctx) => {
    const { enabled } = read.form.endpointEnabled(body(ctx))
    await updateEndpoint(db, state(ctx).session.accountId, ctx.params.id!, { enabled: enabled === '1' }, acting(ctx))
    ctx.redirect('/dashboard/endpoints?done=endpoint-updated')
  })
  router.post('/dashboard/endpoints/:id/delete', allow('webhooks.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await deleteEndpoint(db, state(ctx).session.accountId, ctx.params.id!, acting(ctx))
    ctx.redirect('/dashboard/endpoints?done=endpoint-deleted')
  })
}

/** A secret shown on this page view only: just made or rotated. */
type Shown = { id: string; secret: string; rotated?: boolean }

function endpointsPage(frame: Frame, d: { endpoints: WebhookEndpoint[]; shown?: Shown }): string {
  const write = frame.can('webhooks.write')
  const post = (id: string, action: string, label: string, fields = html``, cls = '') =>
    html`<form method="post" action="/dashboard/endpoints/${id}/${action}">
      ${csrfField(frame.csrf)}${fields}<button class="${cls}">${label}</button>
    </form>`
  return layout(
    frame,
    'Webhook endpoints',
    html`${
        d.shown
          ? html`<section class="card" data-testid="endpoint-secret">
              <h2>${d.shown.rotated ? 'New signing secret' : 'Endpoint registered'}</h2>
              <p>
                Copy the secret now: it is not shown
                again.${d.shown.rotated ? ' The previous one keeps signing beside it for 24 hours.' : ''}
              </p>
              <code class="secret">${d.shown.secret}</code>
            </section>`
          : ''
      }
      <section class="card">
        <div class="card-head">
          <h2>Endpoints</h2>
          <div class="muted">at most 16</div>
        </div>
        ${
          d.endpoints.length
            ? html`<table>
                <thead>
                  <tr>
                    <th>URL</th>
                    <th>Events</th>
                    <th>Status</th>
                    <th>Created</th>
                    ${write ? html`<th></th>` : ''}
                  </tr>
                </thead>
                <tbody>
                  ${d.endpoints.map(
                    (e) =>
                      html`<tr data-endpoint="${e.id}">
                        <td class="url">
                          ${e.url}${e.description ? html`<div class="small muted">${e.description}</div>` : ''}
                          <div class="small muted"><code>${e.id}</code></div>
                        </td>
                        <td>${e.events ? e.events.join(', ') : 'every type'}</td>
                        <td><span class="pill ${e.enabled ? 'delivered' : 'skipped'}">${e.enabled ? 'enabled' : 'disabled'}</span></td>
                        <td>${when(e.createdAt)}</td>
                        ${
                          write
                            ? html`<td class="row">
                                ${post(e.id, 'test', 'Send test event')} ${post(e.id, 'rotate', 'Rotate secret', html``, 'warn')}
                                ${post(e.id, 'enabled', e.enabled ? 'Disable' : 'Enable', html`<input type="hidden" name="enabled" value="${e.enabled ? '0' : '1'}" />`)}
                                ${post(e.id, 'delete', 'Delete', html``, 'warn')}
                              </td>`
                            : ''
                        }
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted empty">No endpoint yet. Register one to receive job, balance and budget events.</p>`
        }
      </section>
      ${
        write
          ? html`<section class="card">
              <h2>Register an endpoint</h2>
              <form method="post" action="/dashboard/endpoints">
                ${csrfField(frame.csrf)}
                <label>URL (https, public) <input name="url" required maxlength="2048" placeholder="https://example.com/hooks" /></label>
                <label
                  >Events, comma-separated (empty: every type) <input name="events" maxlength="600" placeholder="balance.*, job.failed"
                /></label>
                <label>Description <input name="description" maxlength="500" /></label>
                <button class="primary">Register</button>
              </form>
            </section>`
          : ''
      }`,
  )
}
