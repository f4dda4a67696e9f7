// Usage: the credit ledger, filtered by endpoint, key and days, fifty entries a page, and the same filter as CSV.
import type Router from '@koa/router'
import type { Context } from 'koa'
import { ledgerCsv, listLedger, type LedgerEntry, type UsageFilter } from '../../usage/usage.ts'
import { credits, when } from '../format.ts'
import { state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { page, type Kit } from '../kit.ts'
import { layout, type Frame } from '../layout.ts'
import { keyRows } from './keys.ts'

type ShownFilter = UsageFilter & { fromText?: string; toText?: string }

// The filter form sends every field, empty when unused; the schema admits only real days and ids.
const usageFilter = (ctx: Context): ShownFilter & { cursor?: string } => {
  const q = read.query.usage(ctx.query)
  const f: ShownFilter & { cursor?: string } = {}
  if (q.endpoint) f.endpoint = q.endpoint
  if (q.keyId) f.keyId = q.keyId
  if (q.from) {
    f.from = new Date(q.from + 'T00:00:00Z')
    f.fromText = q.from
  }
  if (q.to) {
    f.to = new Date(Date.parse(q.to + 'T00:00:00Z') + 86400_000)
    f.toText = q.to
  }
  if (q.cursor) f.cursor = q.cursor
  return f
}

export function usageRoutes(router: Router, { services, allow, frame }: Kit): void {
  router.get('/dashboard/usage', allow('usage.read'), async (ctx) => {
    const { accountId } = state(ctx).session
    const { cursor, ...filter } = usageFilter(ctx)
    const ledgerPage = await listLedger(services.db, accountId, filter, { limit: 50, ...(cursor ? { cursor } : {}) })
    const keys = (await keyRows(services, accountId)).map((k) => ({
      id: k.id,
      label: `${k.name ?? 'unnamed'} (${k.prefix}…)${k.revokedAt ? ' · revoked' : ''}`,
    }))
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries({ endpoint: filter.endpoint, keyId: filter.keyId, from: filter.fromText, to: filter.toText }))
      if (v) query.set(k, v)
    const endpoints = [...services.capabilities.keys()].sort()
    page(ctx, usagePage(await frame(ctx, 'usage'), { filter, ...ledgerPage, keys, endpoints, query }))
  })
  router.get('/dashboard/usage.csv', allow('usage.read'), async (ctx) => {
    ctx.type = 'text/csv; charset=utf-8'
    ctx.attachment(`usage-${services.now().toISOString().slice(0, 10)}.csv`)
    const { cursor: _cursor, ...filter } = usageFilter(ctx)
    ctx.body = await ledgerCsv(services.db, state(ctx).session.accountId, filter)
  })
}

function usagePage(
  frame: Frame,
  d: {
    filter: ShownFilter
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
