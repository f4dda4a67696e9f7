// Audit log: every change and sign-in of the account, newest first, filtered by action, actor and days, fifty a
// page, and the same filter as CSV. Owners and admins.
import type Router from '@koa/router'
import type { Context } from 'koa'
import { auditCsv, listAudit, type AuditEntry, type AuditFilter } from '../../audit/list.ts'
import { when } from '../format.ts'
import { state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { page, type Kit } from '../kit.ts'
import { layout, type Frame } from '../layout.ts'

/** The page's filter, and the query the form shows again (the next page's link and the CSV keep it). */
function auditFilter(ctx: Context): { filter: AuditFilter; query: URLSearchParams; cursor?: string } {
  const q = read.query.audit(ctx.query)
  const filter: AuditFilter = {}
  const query = new URLSearchParams()
  if (q.action) filter.action = q.action
  if (q.actor) filter.actor = q.actor.trim()
  if (q.from) filter.from = new Date(q.from + 'T00:00:00Z')
  if (q.to) filter.to = new Date(Date.parse(q.to + 'T00:00:00Z') + 86400_000)
  for (const k of ['action', 'actor', 'from', 'to'] as const) if (q[k]) query.set(k, q[k])
  return { filter, query, ...(q.cursor ? { cursor: q.cursor } : {}) }
}

export function auditRoutes(router: Router, { services, allow, frame }: Kit): void {
  router.get('/dashboard/audit', allow('audit.read'), async (ctx) => {
    const { filter, query, cursor } = auditFilter(ctx)
    const found = await listAudit(services.db, state(ctx).session.accountId, filter, { limit: 50, ...(cursor ? { cursor } : {}) })
    page(ctx, auditPage(await frame(ctx, 'audit'), { ...found, query }))
  })
  router.get('/dashboard/audit.csv', allow('audit.read'), async (ctx) => {
    const { filter } = auditFilter(ctx)
    ctx.type = 'text/csv; charset=utf-8'
    ctx.attachment(`audit-log-${services.now().toISOString().slice(0, 10)}.csv`)
    ctx.body = await auditCsv(services.db, state(ctx).session.accountId, filter)
  })
}

const actorLabel = (a: AuditEntry['actor']) => a.email ?? (a.keyPrefix ? `key ${a.keyPrefix}…` : a.type)

function auditPage(frame: Frame, d: { entries: AuditEntry[]; nextCursor?: string; query: URLSearchParams }): string {
  const next = new URLSearchParams(d.query)
  if (d.nextCursor) next.set('cursor', d.nextCursor)
  return layout(
    frame,
    'Audit log',
    html`<section class="card">
        <form method="get" action="/dashboard/audit" class="row filters">
          <label
            >Action<input name="action" value="${d.query.get('action') ?? ''}" placeholder="e.g. key or key.revoked" maxlength="81"
          /></label>
          <label
            >Actor<input name="actor" value="${d.query.get('actor') ?? ''}" placeholder="email, key prefix, id, operator" maxlength="254"
          /></label>
          <label>From<input type="date" name="from" value="${d.query.get('from') ?? ''}" /></label>
          <label>To<input type="date" name="to" value="${d.query.get('to') ?? ''}" /></label>
          <button>Apply</button>
          <a class="button" href="/dashboard/audit.csv?${d.query.toString()}">Export CSV</a>
        </form>
      </section>
      <section class="card">
        ${
          d.entries.length
            ? html`<table class="audit">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Actor</th>
                      <th>Action</th>
                      <th>Target</th>
                      <th>Request</th>
                      <th>Address</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${d.entries.map(
                      (e) =>
                        html`<tr data-audit-id="${e.id}">
                          <td>${when(e.at)}</td>
                          <td>${actorLabel(e.actor)}</td>
                          <td><code>${e.action}</code></td>
                          <td>${e.target.type} <span class="muted small">${e.target.id ?? ''}</span></td>
                          <td class="muted small">${e.requestId ?? ''}</td>
                          <td class="muted small">${e.ip ?? ''}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
                ${d.nextCursor ? html`<p class="right"><a class="button" href="/dashboard/audit?${next.toString()}">Older entries →</a></p>` : ''}`
            : html`<p class="muted empty">No entries match.</p>`
        }
      </section>`,
  )
}
