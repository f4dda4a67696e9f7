// Billing: credit packs and monthly plans bought through Stripe Checkout, cancelling a plan, auto-recharge.
import type Router from '@koa/router'
import { getAccount, PACKS, PLANS, type Pack, type Plan } from '../../accounts/accounts.ts'
import {
  cancelPlan,
  PACK_PRICE_CENTS,
  PLAN_PRICE_CENTS,
  RECHARGE_PACKS,
  setAutoRecharge,
  startCheckout,
  type RechargePack,
} from '../../billing/billing.ts'
import { audit } from '../../audit/audit.ts'
import { ApiError } from '../../errors.ts'
import { credits, planName, title, usd } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

export function billingRoutes(router: Router, { services, origin, allow, acting, frame }: Kit): void {
  router.get('/dashboard/billing', allow('billing.read'), async (ctx) => {
    const { checkout, done } = read.query.billing(ctx.query)
    const { accountId } = state(ctx).session
    const account = await getAccount(services.db, accountId)
    const [row] = await services.db.sql<{
      first_pack_used: boolean
      stripe_subscription_id: string | null
      stripe_payment_method: string | null
      auto_recharge_threshold: number | null
      auto_recharge_pack: RechargePack | null
    }>(
      `select first_pack_used, stripe_subscription_id, stripe_payment_method, auto_recharge_threshold, auto_recharge_pack from accounts where id = ?`,
      [accountId],
    )
    page(
      ctx,
      billingPage(await frame(ctx, 'billing', notice(checkout ? `checkout-${checkout}` : done)), {
        stripe: services.stripe !== null,
        plan: account.plan,
        balance: account.balance,
        hasSubscription: Boolean(row!.stripe_subscription_id),
        firstPackUsed: row!.first_pack_used,
        hasCard: Boolean(row!.stripe_payment_method),
        autoRecharge:
          row!.auto_recharge_threshold == null || !row!.auto_recharge_pack
            ? null
            : { threshold: Number(row!.auto_recharge_threshold), pack: row!.auto_recharge_pack },
      }),
    )
  })
  router.post('/dashboard/billing/checkout', allow('billing.write'), async (ctx) => {
    // The schema's enums are the packs and plans: `toString` or `constructor` is no pack.
    const { pack, plan } = read.form.checkout(body(ctx))
    const item = pack ? { pack } : plan ? { plan } : null
    if (!item) throw new ApiError('invalid_request', 'Choose a pack or a plan.')
    const { accountId } = state(ctx).session
    const url = await startCheckout(services, accountId, item, origin())
    // Nothing is bought yet (Stripe's event grants it, audited then); who started paying is recorded now.
    await audit(services.db, acting(ctx), {
      accountId,
      action: 'checkout.started',
      target: { type: 'account', id: accountId },
      details: item,
    })
    ctx.status = 303
    ctx.redirect(url)
  })
  router.post('/dashboard/billing/cancel', allow('billing.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { accountId } = state(ctx).session
    await cancelPlan(services, accountId)
    // The plan ends when Stripe reports it (audited then as plan.changed); the request is recorded now.
    await audit(services.db, acting(ctx), { accountId, action: 'plan.cancel_requested', target: { type: 'account', id: accountId } })
    ctx.redirect('/dashboard/billing?done=cancelled')
  })
  router.post('/dashboard/billing/auto-recharge', allow('billing.write'), async (ctx) => {
    const f = read.form.autoRecharge(body(ctx))
    if (f.off) await setAutoRecharge(services, state(ctx).session.accountId, null, acting(ctx))
    else {
      const threshold = (f.threshold ?? '').trim()
      if (!/^\d{1,9}$/.test(threshold) || Number(threshold) < 1)
        throw new ApiError('invalid_request', 'The threshold is a whole number of credits, at least 1.')
      if (!f.pack) throw new ApiError('invalid_request', 'Choose the pack to buy.')
      await setAutoRecharge(
        services,
        state(ctx).session.accountId,
        { threshold: Number(threshold), pack: f.pack satisfies RechargePack },
        acting(ctx),
      )
    }
    ctx.redirect('/dashboard/billing?done=recharge')
  })
}

interface BillingData {
  stripe: boolean
  plan: Plan
  hasSubscription: boolean
  firstPackUsed: boolean
  hasCard: boolean
  autoRecharge: { threshold: number; pack: string } | null
  balance: number
}

function billingPage(frame: Frame, d: BillingData): string {
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
        ${d.stripe ? autoRechargeForm(frame, d) : ''}
      </section>`,
  )
}

/** Auto-recharge charges the card saved with a purchase: without one, the page says so. */
function autoRechargeForm(frame: Frame, d: BillingData) {
  return !d.hasCard
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
