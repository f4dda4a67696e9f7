// The dashboard's Requests page: the request log of GET /v1/requests for the signed-in account, live or test (a
// switch, never both at once), with the same filters and cursor; each row links to its detail page, which shows
// everything the log keeps about that request (GET /v1/requests/{requestId}).
import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Query } from '../../db/database.ts'
import { ApiError } from '../../errors.ts'
import { findRequest, listRequests, type RequestFilter, type RequestLogEntry } from '../../requests/list.ts'
import type { RequestLog } from '../../requests/record.ts'
import { state } from '../guards.ts'
import { html } from '../html.ts'
import { page, type Kit } from '../kit.ts'
import { layout, type Frame } from '../layout.ts'
import { keyRows } from './keys.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DAY = /^\d{4}-\d{2}-\d{2}$/

const CACHE_WORDS = {
  hit: 'hit: the stored result of an identical call, no model call, the hit price charged',
  miss: 'miss: the call ran and its result is kept for identical calls',
  bypass: 'bypass: the cache was neither read nor written (Service-Cache: no-store, or async)',
}

export function requestsRoutes(router: Router, { services, allow, frame }: Kit): void {
  router.get('/dashboard/requests', allow('requests.read'), async (ctx) => {
    const { accountId } = state(ctx).session
    const data = await requestsPageData(services.db, services.requestLog, accountId, ctx)
    const keys = (await keyRows(services, accountId)).map((k) => ({ id: k.id, label: `${k.name ?? 'unnamed'} (${k.prefix}…)` }))
    const endpoints = [...services.capabilities.keys()].sort()
    page(ctx, requestsPage(await frame(ctx, 'requests'), { ...data, keys, endpoints }))
  })
  router.get('/dashboard/requests/:requestId', allow('requests.read'), async (ctx) => {
    const id = ctx.params.requestId!
    await services.requestLog.flush()
    const found = /^req_[0-9A-Z]{26}$/.test(id) ? await findRequest(services.db, state(ctx).session.accountId, id, 'live') : null
    if (!found) throw new ApiError('not_found', 'No request with this id in the log of this account.')
    page(ctx, requestPage(await frame(ctx, 'requests'), found))
  })
}

interface Shown {
  filter: RequestFilter
  /** The query as the form shows it again (and the next page's link keeps it). */
  query: URLSearchParams
  requests: RequestLogEntry[]
  nextCursor?: string
}

/** The page's query, read leniently (a value the form cannot have sent is ignored), then the rows. */
async function requestsPageData(db: Query, requestLog: RequestLog, accountId: string, ctx: Context): Promise<Shown> {
  const q = ctx.query as Record<string, string | undefined>
  const query = new URLSearchParams()
  const keep = (name: string, value: string) => {
    query.set(name, value)
    return value
  }
  const filter: RequestFilter = { mode: q.mode === 'test' ? (keep('mode', 'test') as 'test') : 'live' }
  if (q.endpoint && /^[a-z0-9-]{1,64}$/.test(q.endpoint)) filter.endpoint = `/v1/${keep('endpoint', q.endpoint)}`
  if (q.status && /^[1-5]xx$/.test(q.status)) filter.status = { class: Number(keep('status', q.status)[0]) }
  if (q.keyId && UUID.test(q.keyId)) filter.keyId = keep('keyId', q.keyId)
  if (q.from && DAY.test(q.from) && !isNaN(Date.parse(q.from))) filter.from = new Date(keep('from', q.from) + 'T00:00:00Z')
  if (q.to && DAY.test(q.to) && !isNaN(Date.parse(q.to))) filter.to = new Date(Date.parse(keep('to', q.to) + 'T00:00:00Z') + 86400_000)
  const cursor = typeof q.cursor === 'string' && q.cursor.length <= 64 ? q.cursor : undefined
  await requestLog.flush()
  const page = await listRequests(db, accountId, filter, { limit: 50, ...(cursor ? { cursor } : {}) })
  return { filter, query, ...page }
}

const when = (d: string) => new Date(d).toISOString().replace('T', ' ').slice(0, 19) + ' UTC'

function requestsPage(frame: Frame, d: Shown & { endpoints: string[]; keys: { id: string; label: string }[] }): string {
  const next = new URLSearchParams(d.query)
  if (d.nextCursor) next.set('cursor', d.nextCursor)
  const selected = (on: boolean) => (on ? 'selected' : '')
  const endpoint = d.filter.endpoint?.slice(4)
  const status = d.query.get('status')
  return layout(
    frame,
    'Requests',
    html`<section class="card">
        <form method="get" action="/dashboard/requests" class="row filters">
          <label
            >Mode<select name="mode">
              <option value="live" ${selected(d.filter.mode === 'live')}>Live</option>
              <option value="test" ${selected(d.filter.mode === 'test')}>Test</option>
            </select></label
          >
          <label
            >Endpoint<select name="endpoint">
              <option value="">All endpoints</option>
              ${d.endpoints.map((e) => html`<option ${selected(e === endpoint)}>${e}</option>`)}
            </select></label
          >
          <label
            >Status<select name="status">
              <option value="">Any</option>
              ${['2xx', '4xx', '5xx'].map((s) => html`<option ${selected(s === status)}>${s}</option>`)}
            </select></label
          >
          <label
            >Key<select name="keyId">
              <option value="">All keys</option>
              ${d.keys.map((k) => html`<option value="${k.id}" ${selected(k.id === d.filter.keyId)}>${k.label}</option>`)}
            </select></label
          >
          <label>From<input type="date" name="from" value="${d.query.get('from') ?? ''}" /></label>
          <label>To<input type="date" name="to" value="${d.query.get('to') ?? ''}" /></label>
          <button>Apply</button>
        </form>
      </section>
      <section class="card">
        ${
          d.requests.length
            ? html`<table class="requests">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Request</th>
                      <th>Status</th>
                      <th class="right">Credits</th>
                      <th class="right">Latency</th>
                      <th>Key</th>
                      <th>Idempotency-Key</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${d.requests.map(requestRow)}
                  </tbody>
                </table>
                ${d.nextCursor ? html`<p class="right"><a class="button" href="/dashboard/requests?${next.toString()}">Older requests →</a></p>` : ''}`
            : html`<p class="muted empty">No ${d.filter.mode} requests match. Calls appear here as soon as they are answered.</p>`
        }
      </section>`,
  )
}

function requestRow(r: RequestLogEntry) {
  return html`<tr data-request-id="${r.requestId}">
    <td>${when(r.createdAt)}</td>
    <td>
      <code>${r.method} ${r.endpoint}</code>
      <a class="muted small" href="/dashboard/requests/${r.requestId}">${r.requestId}</a>
      ${r.dryRun ? html`<span class="pill">dry run → ${String(r.liveStatus)}</span>` : ''}
      ${r.replayed ? html`<span class="pill">replay</span>` : ''} ${r.cache === 'hit' ? html`<span class="pill">cached</span>` : ''}
    </td>
    <td>
      <span class="pill ${r.status < 400 ? 'delivered' : r.status < 500 ? 'pending' : 'failed'}"
        >${r.status}${r.errorCode ? ` ${r.errorCode}` : ''}</span
      >
    </td>
    <td class="right">${r.credits}</td>
    <td class="right">${r.latencyMs} ms</td>
    <td><code>${r.keyPrefix}…</code></td>
    <td>${r.idempotencyKey ?? ''}</td>
  </tr>`
}

/** One request, everything the log keeps about it. */
function requestPage(frame: Frame, r: RequestLogEntry): string {
  const field = (name: string, value: unknown) =>
    html`<tr>
      <th>${name}</th>
      <td>${value}</td>
    </tr>`
  return layout(
    frame,
    'Request',
    html`<section class="card">
      <p><a href="/dashboard/requests${r.mode === 'test' ? '?mode=test' : ''}">← Requests</a></p>
      <table class="request-detail" data-request-id="${r.requestId}">
        <tbody>
          ${field('Request id', html`<code>${r.requestId}</code>`)} ${field('When', when(r.createdAt))}
          ${field('Call', html`<code>${r.method} ${r.endpoint}</code>`)}
          ${field('Status', `${r.status}${r.errorCode ? ` ${r.errorCode}` : ''}`)} ${r.errorMessage ? field('Message', r.errorMessage) : ''}
          ${r.dryRun ? field('Dry run', `yes: the live call would have answered ${String(r.liveStatus)}`) : ''}
          ${r.replayed ? field('Replayed', 'yes: the recorded answer of its Idempotency-Key, nothing ran') : ''}
          ${r.cache ? field('Result cache', CACHE_WORDS[r.cache]) : ''} ${field('Credits charged', String(r.credits))}
          ${field('Latency', `${r.latencyMs} ms`)}
          ${r.idempotencyKey ? field('Idempotency-Key', html`<code>${r.idempotencyKey}</code>`) : ''}
          ${r.jobId ? field('Job', html`<code>${r.jobId}</code>`) : ''}
          ${field('Key', html`<code>${r.keyPrefix}…</code> (${r.livemode ? 'live' : 'test'})`)}
          ${
            r.metadata
              ? field(
                  'Service-Metadata',
                  html`${Object.entries(r.metadata).map(([k, v]) => html`<code>${k}</code> = <code>${v}</code><br />`)}`,
                )
              : ''
          }
        </tbody>
      </table>
    </section>`,
  )
}
