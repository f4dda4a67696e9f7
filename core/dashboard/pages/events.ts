// Events: the account's event log (C17), live and test, newest first; one event with each delivery's attempts and
// a resend button (a new delivery with the same webhook-id).
import type Router from '@koa/router'
import { ApiError } from '../../errors.ts'
import { getEvent, listEvents, resendEvent, type Reader } from '../../events/log.ts'
import type { Query } from '../../db/database.ts'
import { when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

type Listed = Awaited<ReturnType<typeof listEvents>>['events'][number]
type Detailed = Awaited<ReturnType<typeof getEvent>>

/** Members see both modes: the event's own mode is the reader's (an unknown id, or another account's, is 404). */
async function readerOf(db: Query, accountId: string, id: string): Promise<Reader> {
  const [row] = await db.sql<{ livemode: boolean }>(`select livemode from events where id = ? and account_id = ?`, [id, accountId])
  if (!row) throw new ApiError('not_found', 'No such event.')
  return { accountId, livemode: row.livemode }
}

export function eventsRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  const { db } = services
  router.get('/dashboard/events', allow('webhooks.read'), async (ctx) => {
    read.query.none(ctx.query)
    const { accountId } = state(ctx).session
    const [live, test] = await Promise.all([true, false].map((livemode) => listEvents(db, { accountId, livemode }, { limit: 50 })))
    const events = [...live!.events, ...test!.events].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 50)
    page(ctx, eventsPage(await frame(ctx, 'events'), events))
  })
  router.get('/dashboard/events/:id', allow('webhooks.read'), async (ctx) => {
    const done = read.query.page(ctx.query).done
    const reader = await readerOf(db, state(ctx).session.accountId, ctx.params.id!)
    page(ctx, eventPage(await frame(ctx, 'events', notice(done)), await getEvent(db, reader, ctx.params.id!)))
  })
  router.post('/dashboard/events/:id/resend', allow('webhooks.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const reader = await readerOf(db, state(ctx).session.accountId, ctx.params.id!)
    await resendEvent(db, reader, ctx.params.id!, undefined, acting(ctx))
    ctx.redirect(`/dashboard/events/${encodeURIComponent(ctx.params.id!)}?done=resent`)
  })
}

const mode = (livemode: boolean) => (livemode ? '' : html`<span class="pill pending">test</span>`)

function eventsPage(frame: Frame, events: Listed[]): string {
  return layout(
    frame,
    'Events',
    html`<section class="card">
      <div class="card-head">
        <h2>Recent events</h2>
        <div class="muted">latest 50, kept 30 days</div>
      </div>
      ${
        events.length
          ? html`<table>
              <thead>
                <tr>
                  <th>When</th>
                  <th>Type</th>
                  <th>Event</th>
                </tr>
              </thead>
              <tbody>
                ${events.map(
                  (e) =>
                    html`<tr>
                      <td>${when(e.createdAt)}</td>
                      <td>${e.type} ${mode(e.livemode)}</td>
                      <td>
                        <a href="/dashboard/events/${e.id}"><code>${e.id}</code></a>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p class="muted empty">No events yet. Async jobs, balance and budget alerts and test pings appear here.</p>`
      }
    </section>`,
  )
}

function eventPage(frame: Frame, e: Detailed): string {
  return layout(
    frame,
    `Event ${e.type}`,
    html`<section class="card">
        <div class="card-head">
          <h2>${e.type} ${mode(e.livemode)}</h2>
          <div class="muted">${when(e.createdAt)}</div>
        </div>
        <p class="small muted">webhook-id <code>${e.id}</code></p>
        <pre>${JSON.stringify(e.data, null, 2)}</pre>
        ${
          frame.can('webhooks.write')
            ? html`<form method="post" action="/dashboard/events/${e.id}/resend">
                ${csrfField(frame.csrf)}<button>Resend to every subscribed endpoint</button>
              </form>`
            : ''
        }
      </section>
      <section class="card">
        <h2>Deliveries</h2>
        ${e.deliveries.map(
          (d) =>
            html`<div class="delivery" data-status="${d.status}">
              <p>
                <span class="pill ${d.status}">${d.status}</span> ${d.url ? html`<span class="url">${d.url}</span>` : ''}
                ${d.reason ? html`<span class="small muted">${d.reason}</span>` : ''}
                ${d.nextAttemptAt ? html`<span class="small muted">next attempt ${when(d.nextAttemptAt)}</span>` : ''}
              </p>
              ${
                d.attemptLog.length
                  ? html`<table>
                      <thead>
                        <tr>
                          <th>Attempt</th>
                          <th>When</th>
                          <th>Status</th>
                          <th>Error</th>
                          <th>ms</th>
                        </tr>
                      </thead>
                      <tbody>
                        ${d.attemptLog.map(
                          (a) =>
                            html`<tr>
                              <td>${a.attempt}</td>
                              <td>${when(a.at)}</td>
                              <td>${a.statusCode ?? '–'}</td>
                              <td>${a.error ?? ''}</td>
                              <td>${a.durationMs}</td>
                            </tr>`,
                        )}
                      </tbody>
                    </table>`
                  : ''
              }
            </div>`,
        )}
      </section>`,
  )
}
