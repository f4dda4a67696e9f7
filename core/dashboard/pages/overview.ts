// The overview: balance, holds, plan, and the last 30 days of spending as a chart drawn on the server.
import type Router from '@koa/router'
import { getAccount, PLANS, type Plan } from '../../accounts/accounts.ts'
import { dailyCapabilityTotals, type DailyEndpointTotal } from '../../records/rollups.ts'
import { credits, planName, usd } from '../format.ts'
import { state } from '../guards.ts'
import { html, trusted, type Html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { layout, type Frame } from '../layout.ts'

export function overviewRoutes(router: Router, { services, allow, frame }: Kit): void {
  router.get('/dashboard', allow('account.read'), async (ctx) => {
    const { done } = read.query.page(ctx.query)
    const { accountId } = state(ctx).session
    const account = await getAccount(services.db, accountId)
    const today = services.now()
    // The same hourly rollups as GET /v1/usage/summary: never a scan of the logs.
    const daily = await dailyCapabilityTotals(services.db, accountId, {
      from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 29)),
      to: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1)),
    })
    page(ctx, overviewPage(await frame(ctx, 'overview', notice(done)), { ...account, daily, today }))
  })
}

interface OverviewData {
  balance: number
  reserved: number
  available: number
  plan: Plan
  daily: DailyEndpointTotal[]
  today: Date
}

function overviewPage(frame: Frame, d: OverviewData): string {
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
function usageChart(daily: DailyEndpointTotal[], today: Date): Html {
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
