// Alerts: balance thresholds, key budget percents and email (C17), for the roles that handle billing.
import type Router from '@koa/router'
import { AlertInput, getAlerts, putAlerts, type AlertSettings } from '../../events/alerts.ts'
import { inputReader } from '../../validation.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

/** The API's schema checks the numbers the form lists, so both accept the same settings. */
const checkAlerts = inputReader(AlertInput, 'body')
const numbers = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => (/^\d{1,13}$/.test(x) ? Number(x) : x))

export function alertsRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  router.get('/dashboard/alerts', allow('billing.read'), async (ctx) => {
    const done = read.query.page(ctx.query).done
    const settings = await getAlerts(services.db, state(ctx).session.accountId)
    page(ctx, alertsPage(await frame(ctx, 'alerts', notice(done)), settings))
  })
  router.post('/dashboard/alerts', allow('billing.write'), async (ctx) => {
    const form = read.form.alerts(body(ctx))
    const input = checkAlerts({
      balanceThresholds: numbers(form.balanceThresholds),
      keyBudgetPercents: numbers(form.keyBudgetPercents),
      email: form.email === '1',
    })
    await putAlerts(services.db, state(ctx).session.accountId, input, acting(ctx))
    ctx.redirect('/dashboard/alerts?done=alerts')
  })
}

function alertsPage(frame: Frame, s: AlertSettings): string {
  const write = frame.can('billing.write')
  return layout(
    frame,
    'Alerts',
    html`<section class="card">
      <p class="muted">
        <code>balance.low</code> is sent once when the available credits go below a threshold, in the same transaction as the charge that
        crossed it; not again until credits come in and <code>balance.recovered</code> is sent. <code>key.budget_threshold</code> is sent
        once per key, percent and month. Events go to your <a href="/dashboard/endpoints">endpoints</a>.
      </p>
      ${
        write
          ? html`<form method="post" action="/dashboard/alerts">
              ${csrfField(frame.csrf)}
              <label
                >Balance thresholds in credits, comma-separated (up to 10)
                <input name="balanceThresholds" maxlength="200" value="${s.balanceThresholds.join(', ')}" placeholder="500, 100"
              /></label>
              <label
                >Key budget percents, comma-separated (1–100, up to 10)
                <input name="keyBudgetPercents" maxlength="100" value="${s.keyBudgetPercents.join(', ')}" placeholder="50, 90, 100"
              /></label>
              <label><input type="checkbox" name="email" value="1" ${s.email ? html`checked` : ''} /> Email the owners too</label>
              <button class="primary">Save</button>
            </form>`
          : html`<dl>
              <dt>Balance thresholds</dt>
              <dd>${s.balanceThresholds.join(', ') || 'none'}</dd>
              <dt>Key budget percents</dt>
              <dd>${s.keyBudgetPercents.join(', ') || 'none'}</dd>
              <dt>Email</dt>
              <dd>${s.email ? 'yes' : 'no'}</dd>
            </dl>`
      }
    </section>`,
  )
}
