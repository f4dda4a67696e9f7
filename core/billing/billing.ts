// Payments through Stripe (spec 8.3): Checkout Sessions for packs and plans, the signed webhook that grants
// credits once per event, plan renewals on invoice.paid, and auto-recharge off-session. Credits move only
// through the kernel's own rules (grantPack, applyPlan, credit); this module decides when, never how much.
import Stripe from 'stripe'
import type { Context } from 'koa'
import { applyPlan, getAccount, grantPack, PACKS, PLANS, type Pack, type Plan } from '../accounts/accounts.ts'
import type { Config } from '../config.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { credit } from '../wallet/wallet.ts'

/** USD cents per pack and per plan month (1 credit = 0.01 USD; larger packs carry a bonus). */
export const PACK_PRICE_CENTS: Record<Pack, number> = { first: 500, starter: 2000, growth: 10000, scale: 50000 }
export const PLAN_PRICE_CENTS: Record<Exclude<Plan, 'none'>, number> = { developer: 1900, team: 2500 }
export const RECHARGE_PACKS = ['starter', 'growth', 'scale'] as const satisfies readonly Pack[]
export type RechargePack = (typeof RECHARGE_PACKS)[number]
export const AUTO_RECHARGE_TASK = 'auto_recharge'

export function createStripe(config: Config['billing']): Stripe | null {
  if (!config.secretKey) return null
  return new Stripe(config.secretKey, { ...(config.api ?? {}), maxNetworkRetries: 1, telemetry: false })
}

function stripeOf(services: Services): Stripe {
  if (!services.stripe) throw new ApiError('not_found', 'Payments are made by the operator on this service.')
  return services.stripe
}

/** A Checkout Session for a pack (saving the card for auto-recharge) or a plan subscription; returns its URL. */
export async function startCheckout(
  services: Services,
  accountId: string,
  item: { pack: Pack } | { plan: Exclude<Plan, 'none'> },
  origin: string,
): Promise<string> {
  const stripe = stripeOf(services)
  const account = await getAccount(services.db, accountId)
  const [row] = await services.db.sql(`select first_pack_used, stripe_customer_id, stripe_subscription_id from accounts where id = ?`, [
    accountId,
  ])
  const customer = row?.stripe_customer_id ? { customer: row.stripe_customer_id as string } : { customer_email: account.email }
  const urls = { success_url: `${origin}/dashboard/billing?checkout=done`, cancel_url: `${origin}/dashboard/billing?checkout=cancelled` }
  if ('pack' in item) {
    if (item.pack === 'first' && row?.first_pack_used)
      throw new ApiError('first_pack_used', 'The first pack can be bought once per account.')
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      ...customer,
      ...(customer.customer ? {} : { customer_creation: 'always' }),
      client_reference_id: accountId,
      metadata: { accountId, pack: item.pack },
      payment_intent_data: { setup_future_usage: 'off_session', metadata: { accountId, pack: item.pack } },
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: PACK_PRICE_CENTS[item.pack],
            product_data: { name: `${capitalized(item.pack)} pack: ${PACKS[item.pack].toLocaleString('en-US')} credits` },
          },
        },
      ],
      ...urls,
    })
    return session.url!
  }
  if (row?.stripe_subscription_id) throw new ApiError('invalid_request', 'Cancel the current plan before subscribing to another.')
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    ...customer,
    client_reference_id: accountId,
    metadata: { accountId, plan: item.plan },
    subscription_data: { metadata: { accountId, plan: item.plan } },
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: 'usd',
          unit_amount: PLAN_PRICE_CENTS[item.plan],
          recurring: { interval: 'month' },
          product_data: { name: `${capitalized(item.plan)} plan: ${PLANS[item.plan].toLocaleString('en-US')} credits a month` },
        },
      },
    ],
    ...urls,
  })
  return session.url!
}

/** Cancels the subscription at Stripe; the plan ends when Stripe reports customer.subscription.deleted. */
export async function cancelPlan(services: Services, accountId: string): Promise<void> {
  const stripe = stripeOf(services)
  const [row] = await services.db.sql<{ stripe_subscription_id: string | null }>(
    `select stripe_subscription_id from accounts where id = ?`,
    [accountId],
  )
  if (!row?.stripe_subscription_id) throw new ApiError('invalid_request', 'There is no plan subscription to cancel.')
  await stripe.subscriptions.cancel(row.stripe_subscription_id)
}

export async function setAutoRecharge(
  services: Services,
  accountId: string,
  setting: { threshold: number; pack: RechargePack } | null,
): Promise<void> {
  if (setting) {
    const [row] = await services.db.sql(`select stripe_payment_method from accounts where id = ?`, [accountId])
    if (!row?.stripe_payment_method)
      throw new ApiError('invalid_request', 'Buy a pack by card first: auto-recharge charges the card saved with it.')
  }
  await services.db.sql(`update accounts set auto_recharge_threshold = ?, auto_recharge_pack = ?, recharge_pending = false where id = ?`, [
    setting?.threshold ?? null,
    setting?.pack ?? null,
    accountId,
  ])
}

/** Records the grant's reference; false when it was recorded before (the event is a redelivery). */
async function claimGrant(q: Query, reference: string, accountId: string, kind: string): Promise<boolean> {
  const rows = await q.sql(
    `insert into payment_grants (reference, account_id, kind) values (?, ?, ?) on conflict do nothing returning reference`,
    [reference, accountId, kind],
  )
  return rows.length === 1
}

/** POST /stripe/webhook: verifies the signature over the raw body, then applies the event once. */
export async function stripeWebhook(services: Services, ctx: Context, raw: Buffer): Promise<void> {
  const stripe = stripeOf(services)
  const secret = services.config.billing.webhookSecret
  if (!secret) throw new ApiError('not_found', 'Stripe webhooks are not configured.')
  let event: Stripe.Event
  try {
    event = stripe.webhooks.constructEvent(raw, ctx.get('Stripe-Signature'), secret)
  } catch {
    throw new ApiError('invalid_request', 'The Stripe signature is not valid.')
  }
  await applyEvent(services, event)
  ctx.body = { received: true }
}

async function applyEvent(services: Services, event: Stripe.Event): Promise<void> {
  const { db } = services
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object
    const accountId = session.metadata?.accountId ?? session.client_reference_id
    if (!accountId || session.payment_status === 'unpaid') return
    const customerId = typeof session.customer === 'string' ? session.customer : (session.customer?.id ?? null)
    let paymentMethod: string | null = null
    if (session.mode === 'payment' && session.payment_intent) {
      const pi =
        typeof session.payment_intent === 'string'
          ? await services.stripe!.paymentIntents.retrieve(session.payment_intent)
          : session.payment_intent
      paymentMethod = typeof pi.payment_method === 'string' ? pi.payment_method : (pi.payment_method?.id ?? null)
    }
    await db.tx(async (q) => {
      if (!(await claimGrant(q, event.id, accountId, event.type))) return
      await q.sql(
        `update accounts set stripe_customer_id = coalesce(?, stripe_customer_id), stripe_payment_method = coalesce(?, stripe_payment_method) where id = ?`,
        [customerId, paymentMethod, accountId],
      )
      if (session.mode === 'payment') {
        const pack = session.metadata?.pack as Pack
        if (!(pack in PACKS)) throw new Error(`checkout session ${session.id} names no pack`)
        // The first pack was checked when checkout started; a second one paid meanwhile still gets its credits.
        const [first] = pack === 'first' ? await q.sql(`select first_pack_used from accounts where id = ?`, [accountId]) : [null]
        if (first?.first_pack_used) await credit(q, accountId, 'purchase', PACKS.first, `pack first (repeat) ${session.id}`, services.now())
        else await grantPack(q, accountId, pack, `pack ${pack} ${session.id}`, services.now())
      } else if (session.mode === 'subscription') {
        const plan = session.metadata?.plan as Plan
        if (!(plan in PLANS) || plan === 'none') throw new Error(`checkout session ${session.id} names no plan`)
        const subscription = typeof session.subscription === 'string' ? session.subscription : (session.subscription?.id ?? null)
        await applyPlan(q, accountId, plan, services.now())
        // Stripe's invoices drive renewals of this plan, not the maintenance pass.
        await q.sql(`update accounts set stripe_subscription_id = ?, plan_renews_at = null where id = ?`, [subscription, accountId])
      }
    })
  } else if (event.type === 'invoice.paid') {
    const invoice = event.data.object
    // The first invoice is paid with the checkout; its bundle was granted by checkout.session.completed.
    if (invoice.billing_reason !== 'subscription_cycle') return
    const subscription = subscriptionOf(invoice)
    if (!subscription) return
    await db.tx(async (q) => {
      const [account] = await q.sql<{ id: string; plan: Plan | 'none' }>(`select id, plan from accounts where stripe_subscription_id = ?`, [
        subscription,
      ])
      if (!account || account.plan === 'none') return
      if (!(await claimGrant(q, event.id, account.id, event.type))) return
      await credit(q, account.id, 'plan_grant', PLANS[account.plan], `plan ${account.plan} renewal ${invoice.id}`, services.now())
    })
  } else if (event.type === 'customer.subscription.deleted') {
    const subscription = event.data.object
    await db.sql(
      `update accounts set plan = 'none', plan_renews_at = null, stripe_subscription_id = null where stripe_subscription_id = ?`,
      [subscription.id],
    )
  }
}

function subscriptionOf(invoice: Stripe.Invoice): string | null {
  const parent = (invoice as { parent?: { subscription_details?: { subscription?: string | { id: string } } } }).parent
  const legacy = (invoice as { subscription?: string | { id: string } }).subscription
  const s = parent?.subscription_details?.subscription ?? legacy
  return typeof s === 'string' ? s : (s?.id ?? null)
}

/**
 * The graphile-worker task the accounts trigger queues when a charge takes available below the threshold:
 * charges the saved card off-session for the chosen pack. Success grants the pack once (keyed by the
 * PaymentIntent); a refusal turns auto-recharge off and emails the account.
 */
export function autoRechargeTask(services: Services) {
  return async (payload: unknown, helpers: { job: { id: string | number } }): Promise<void> => {
    const { accountId } = payload as { accountId: string }
    const { db } = services
    const [a] = await db.sql<{
      email: string
      auto_recharge_threshold: number | null
      auto_recharge_pack: RechargePack | null
      stripe_customer_id: string
      stripe_payment_method: string | null
    }>(
      `select email, auto_recharge_threshold, auto_recharge_pack, stripe_customer_id, stripe_payment_method from accounts where id = ? and recharge_pending`,
      [accountId],
    )
    if (!a) return
    const pack = a.auto_recharge_pack
    if (!services.stripe || a.auto_recharge_threshold == null || !pack || !a.stripe_payment_method) {
      await db.sql(`update accounts set recharge_pending = false where id = ?`, [accountId])
      return
    }
    let intent: Stripe.PaymentIntent | null = null
    let failure = ''
    try {
      intent = await services.stripe.paymentIntents.create(
        {
          amount: PACK_PRICE_CENTS[pack],
          currency: 'usd',
          customer: a.stripe_customer_id,
          payment_method: a.stripe_payment_method,
          off_session: true,
          confirm: true,
          description: `Auto-recharge: ${pack} pack`,
          metadata: { accountId, pack, kind: 'auto_recharge' },
        },
        { idempotencyKey: `auto-recharge-${accountId}-${helpers.job.id}` },
      )
      if (intent.status !== 'succeeded') failure = `the payment is ${intent.status.replace(/_/g, ' ')}`
    } catch (e) {
      if (!(e instanceof Stripe.errors.StripeCardError || e instanceof Stripe.errors.StripeInvalidRequestError)) throw e
      failure = e.message
    }
    if (intent && !failure) {
      await db.tx(async (q) => {
        if (await claimGrant(q, intent.id, accountId, 'auto_recharge'))
          await grantPack(q, accountId, pack, `auto-recharge ${pack} ${intent.id}`, services.now())
        await q.sql(`update accounts set recharge_pending = false where id = ?`, [accountId])
      })
      return
    }
    await db.sql(`update accounts set auto_recharge_threshold = null, recharge_pending = false where id = ?`, [accountId])
    services.log(`[billing] auto-recharge failed for account ${accountId}; turned off`)
    await services.mailer.send(
      a.email,
      'Auto-recharge failed and is now off',
      `We could not charge your saved card for the ${pack} pack (${failure}).\n\nAuto-recharge has been turned off so that we do not try again. ` +
        `Update your card by buying a pack on the billing page, then turn auto-recharge back on.`,
    )
  }
}

const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1)
