// Payments through Stripe (spec 8.3): Checkout Sessions for packs and plans, the signed webhook that grants
// credits once per event, plan renewals on invoice.paid, and auto-recharge off-session. Credits move only
// through the kernel's own rules (grantPack, applyPlan, credit); this module decides when, never how much.
import { Type, type Static } from '@sinclair/typebox'
import Stripe from 'stripe'
import type { Context } from 'koa'
import { applyPlan, getAccount, grantPack, PACKS, PLANS, type Pack, type Plan } from '../accounts/accounts.ts'
import { audit, systemActing, type Acting } from '../audit/audit.ts'
import type { Config } from '../config.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { emitEvent } from '../events/emit.ts'
import type { Services } from '../services.ts'
import { ajv, formatErrors, UUID } from '../validation.ts'
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
  acting: Acting,
): Promise<void> {
  if (setting) {
    const [row] = await services.db.sql(`select stripe_payment_method from accounts where id = ?`, [accountId])
    if (!row?.stripe_payment_method)
      throw new ApiError('invalid_request', 'Buy a pack by card first: auto-recharge charges the card saved with it.')
  }
  await services.db.tx(async (q) => {
    await q.sql(`update accounts set auto_recharge_threshold = ?, auto_recharge_pack = ?, recharge_pending = false where id = ?`, [
      setting?.threshold ?? null,
      setting?.pack ?? null,
      accountId,
    ])
    await audit(q, acting, {
      accountId,
      action: setting ? 'auto_recharge.updated' : 'auto_recharge.disabled',
      target: { type: 'account', id: accountId },
      details: setting ?? {},
    })
  })
}

/**
 * Records the grant's reference (a Checkout Session, invoice or PaymentIntent id: what was paid, not the event
 * that reported it, since Stripe may report one payment under several event ids); false when it was recorded
 * before. `legacy` is a reference recorded by earlier versions for the same grant (the event id).
 */
async function claimGrant(q: Query, reference: string, accountId: string, kind: string, legacy?: string): Promise<boolean> {
  const rows = await q.sql(
    `insert into payment_grants (reference, account_id, kind)
       select ?, ?, ? where not exists (select 1 from payment_grants where reference = ?)
     on conflict do nothing returning reference`,
    [reference, accountId, kind, legacy ?? reference],
  )
  return rows.length === 1
}

/** A signature timestamp further in the future than this is refused (clocks differ by seconds, not minutes). */
export const STRIPE_FUTURE_TOLERANCE_SECONDS = 60

/** POST /stripe/webhook: verifies the signature over the raw body, then applies the event once. */
export async function stripeWebhook(services: Services, ctx: Context, raw: Buffer): Promise<void> {
  const stripe = stripeOf(services)
  const secret = services.config.billing.webhookSecret
  if (!secret) throw new ApiError('not_found', 'Stripe webhooks are not configured.')
  const header = ctx.get('Stripe-Signature')
  const now = services.now().getTime()
  let event: Stripe.Event
  try {
    // Stripe's check refuses a timestamp older than 5 minutes, measured on the kernel's clock.
    event = stripe.webhooks.constructEvent(raw, header, secret, undefined, undefined, now)
  } catch {
    throw new ApiError('invalid_request', 'The Stripe signature is not valid.')
  }
  // ...and this one a timestamp from the future, which the age check alone would accept for any length of time.
  const stamps = [...header.matchAll(/(?:^|,)\s*t=(\d+)/g)].map((m) => Number(m[1]))
  if (stamps.some((t) => t * 1000 > now + STRIPE_FUTURE_TOLERANCE_SECONDS * 1000))
    throw new ApiError('invalid_request', 'The Stripe signature is timestamped in the future.')
  const outcome = await applyEvent(services, event)
  // A signed event that grants nothing is still acknowledged (200): Stripe would otherwise retry it for days.
  if (outcome.ignored)
    services.logger[outcome.alarm ? 'error' : 'info'](
      { stripeEvent: event.id, type: event.type, reason: outcome.ignored },
      outcome.alarm ? 'stripe event refused' : 'stripe event ignored',
    )
  ctx.body = { received: true }
}

/** What an event did: nothing to do, or granted nothing for a reason (`alarm`: the payment does not add up). */
type Outcome = { ignored?: undefined } | { ignored: string; alarm?: boolean }

const StripeId = (prefix: string) => Type.String({ pattern: `^${prefix}_[A-Za-z0-9_]{1,250}$` })
const Reference = Type.Union([Type.String({ maxLength: 255 }), Type.Object({ id: Type.String({ maxLength: 255 }) }), Type.Null()])
const Metadata = Type.Union([Type.Record(Type.String(), Type.String({ maxLength: 500 })), Type.Null()])
/** The fields of the objects this module reads, as Stripe sends them; anything else in an event is not ours to check. */
const CheckoutSession = Type.Object({
  id: StripeId('cs'),
  mode: Type.Union([Type.Literal('payment'), Type.Literal('subscription'), Type.Literal('setup')]),
  payment_status: Type.String(),
  amount_total: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  client_reference_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  metadata: Type.Optional(Metadata),
  customer: Type.Optional(Reference),
  payment_intent: Type.Optional(Reference),
  subscription: Type.Optional(Reference),
})
const Invoice = Type.Object({
  id: StripeId('in'),
  billing_reason: Type.Union([Type.String(), Type.Null()]),
  amount_paid: Type.Integer(),
  currency: Type.String(),
})
const Subscription = Type.Object({ id: StripeId('sub') })
const checks = {
  session: ajv.compile<Static<typeof CheckoutSession>>(CheckoutSession),
  invoice: ajv.compile<Static<typeof Invoice>>(Invoice),
  subscription: ajv.compile<Static<typeof Subscription>>(Subscription),
}
const idOf = (ref: Static<typeof Reference> | undefined) => (typeof ref === 'string' ? ref : (ref?.id ?? null))
const priceMatches = (paid: { amount: number | null; currency: string | null }, cents: number) =>
  paid.amount === cents && paid.currency === 'usd'

/** Stripe's events change accounts as the system, the event id standing in for a request id. */
const stripeActing = (services: Services, event: { id: string }): Acting => systemActing(services.now(), event.id)

async function applyEvent(services: Services, event: Stripe.Event): Promise<Outcome> {
  const object: unknown = (event as { data?: { object?: unknown } }).data?.object
  if (event.type === 'checkout.session.completed') {
    if (!checks.session(object)) return { ignored: `not a checkout session: ${JSON.stringify(formatErrors(checks.session.errors))}` }
    return checkoutCompleted(services, event.id, object)
  }
  if (event.type === 'invoice.paid') {
    if (!checks.invoice(object)) return { ignored: `not an invoice: ${JSON.stringify(formatErrors(checks.invoice.errors))}` }
    return invoicePaid(services, event.id, object as Static<typeof Invoice> & Stripe.Invoice)
  }
  if (event.type === 'customer.subscription.deleted') {
    if (!checks.subscription(object)) return { ignored: 'not a subscription' }
    await services.db.tx(async (q) => {
      const ended = await q.sql<{ id: string }>(
        `update accounts set plan = 'none', plan_renews_at = null, stripe_subscription_id = null where stripe_subscription_id = ? returning id`,
        [object.id],
      )
      for (const { id } of ended)
        await audit(q, stripeActing(services, event), {
          accountId: id,
          action: 'plan.changed',
          target: { type: 'account', id },
          details: { plan: 'none', reason: 'subscription ended', subscription: object.id },
        })
    })
    return {}
  }
  return { ignored: 'an event type this service does not use' }
}

async function checkoutCompleted(services: Services, eventId: string, session: Static<typeof CheckoutSession>): Promise<Outcome> {
  const { db } = services
  const accountId = session.metadata?.accountId ?? session.client_reference_id
  if (!accountId || !UUID.test(accountId)) return { ignored: `checkout session ${session.id} names no account` }
  if (session.payment_status !== 'paid') return { ignored: `checkout session ${session.id} is ${session.payment_status}` }
  // What was bought, and whether what was paid is its price: credits only for what was verifiably paid.
  const paid = { amount: session.amount_total, currency: session.currency }
  const pack = session.mode === 'payment' ? (session.metadata?.pack ?? '') : null
  const plan = session.mode === 'subscription' ? (session.metadata?.plan ?? '') : null
  if (pack !== null) {
    if (!Object.hasOwn(PACK_PRICE_CENTS, pack)) return { ignored: `checkout session ${session.id} names no pack` }
    if (!priceMatches(paid, PACK_PRICE_CENTS[pack as Pack]))
      return { ignored: `checkout session ${session.id} paid ${paid.amount} ${paid.currency} for pack ${pack}`, alarm: true }
  } else if (plan !== null) {
    if (!Object.hasOwn(PLAN_PRICE_CENTS, plan)) return { ignored: `checkout session ${session.id} names no plan` }
    if (!priceMatches(paid, PLAN_PRICE_CENTS[plan as Exclude<Plan, 'none'>]))
      return { ignored: `checkout session ${session.id} paid ${paid.amount} ${paid.currency} for plan ${plan}`, alarm: true }
  } else return { ignored: `checkout session ${session.id} is a ${session.mode} session` }
  if (!(await db.sql(`select 1 from accounts where id = ?`, [accountId])).length)
    return { ignored: `checkout session ${session.id} names an unknown account` }

  let paymentMethod: string | null = null
  const intent = session.payment_intent ?? null
  if (pack !== null && intent) {
    const pi = typeof intent === 'string' ? await services.stripe!.paymentIntents.retrieve(intent) : (intent as Stripe.PaymentIntent)
    paymentMethod = typeof pi.payment_method === 'string' ? pi.payment_method : (pi.payment_method?.id ?? null)
  }
  let granted = false
  await db.tx(async (q) => {
    if (!(await claimGrant(q, session.id, accountId, 'checkout.session.completed', eventId))) return
    granted = true
    await q.sql(
      `update accounts set stripe_customer_id = coalesce(?, stripe_customer_id), stripe_payment_method = coalesce(?, stripe_payment_method) where id = ?`,
      [idOf(session.customer), paymentMethod, accountId],
    )
    if (pack !== null) {
      // The first pack was checked when checkout started; a second one paid meanwhile still gets its credits.
      const [first] = pack === 'first' ? await q.sql(`select first_pack_used from accounts where id = ?`, [accountId]) : [null]
      if (first?.first_pack_used) await credit(q, accountId, 'purchase', PACKS.first, `pack first (repeat) ${session.id}`, services.now())
      else await grantPack(q, accountId, pack as Pack, `pack ${pack} ${session.id}`, services.now())
      await audit(q, stripeActing(services, { id: eventId }), {
        accountId,
        action: 'pack.purchased',
        target: { type: 'account', id: accountId },
        details: { pack, credits: PACKS[pack as Pack], checkoutSession: session.id },
      })
      await paymentSucceeded(q, services, accountId, {
        kind: 'pack',
        pack,
        credits: PACKS[pack as Pack],
        amountCents: PACK_PRICE_CENTS[pack as Pack],
        reference: session.id,
      })
    } else {
      await applyPlan(q, accountId, plan as Plan, services.now(), stripeActing(services, { id: eventId }))
      await paymentSucceeded(q, services, accountId, {
        kind: 'plan',
        plan: plan!,
        credits: PLANS[plan as Plan],
        amountCents: PLAN_PRICE_CENTS[plan as Exclude<Plan, 'none'>],
        reference: session.id,
      })
      // Stripe's invoices drive renewals of this plan, not the maintenance pass.
      await q.sql(`update accounts set stripe_subscription_id = ?, plan_renews_at = null where id = ?`, [
        idOf(session.subscription),
        accountId,
      ])
    }
  })
  return granted ? {} : { ignored: `checkout session ${session.id} was granted before` }
}

async function invoicePaid(services: Services, eventId: string, invoice: Static<typeof Invoice> & Stripe.Invoice): Promise<Outcome> {
  // The first invoice is paid with the checkout; its bundle was granted by checkout.session.completed.
  if (invoice.billing_reason !== 'subscription_cycle') return {}
  const subscription = subscriptionOf(invoice)
  if (!subscription) return { ignored: `invoice ${invoice.id} names no subscription` }
  let outcome: Outcome = {}
  await services.db.tx(async (q) => {
    const [account] = await q.sql<{ id: string; plan: Plan }>(`select id, plan from accounts where stripe_subscription_id = ?`, [
      subscription,
    ])
    if (!account || account.plan === 'none') return void (outcome = { ignored: `invoice ${invoice.id}: no account on that subscription` })
    if (!priceMatches({ amount: invoice.amount_paid, currency: invoice.currency }, PLAN_PRICE_CENTS[account.plan]))
      return void (outcome = {
        ignored: `invoice ${invoice.id} paid ${invoice.amount_paid} ${invoice.currency} for plan ${account.plan}`,
        alarm: true,
      })
    if (!(await claimGrant(q, invoice.id, account.id, 'invoice.paid', eventId)))
      return void (outcome = { ignored: `invoice ${invoice.id} was granted before` })
    await credit(q, account.id, 'plan_grant', PLANS[account.plan], `plan ${account.plan} renewal ${invoice.id}`, services.now())
    await audit(q, stripeActing(services, { id: eventId }), {
      accountId: account.id,
      action: 'plan.renewed',
      target: { type: 'account', id: account.id },
      details: { plan: account.plan, credits: PLANS[account.plan], invoice: invoice.id },
    })
    await paymentSucceeded(q, services, account.id, {
      kind: 'plan_renewal',
      plan: account.plan,
      credits: PLANS[account.plan],
      amountCents: invoice.amount_paid,
      reference: invoice.id,
    })
  })
  return outcome
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
        if (await claimGrant(q, intent.id, accountId, 'auto_recharge')) {
          await grantPack(q, accountId, pack, `auto-recharge ${pack} ${intent.id}`, services.now())
          await audit(q, systemActing(services.now()), {
            accountId,
            action: 'pack.purchased',
            target: { type: 'account', id: accountId },
            details: { pack, credits: PACKS[pack], via: 'auto-recharge', paymentIntent: intent.id },
          })
          await paymentSucceeded(q, services, accountId, {
            kind: 'auto_recharge',
            pack,
            credits: PACKS[pack],
            amountCents: PACK_PRICE_CENTS[pack],
            reference: intent.id,
          })
        }
        await q.sql(`update accounts set recharge_pending = false where id = ?`, [accountId])
      })
      return
    }
    await db.tx(async (q) => {
      await q.sql(`update accounts set auto_recharge_threshold = null, recharge_pending = false where id = ?`, [accountId])
      await audit(q, systemActing(services.now()), {
        accountId,
        action: 'auto_recharge.disabled',
        target: { type: 'account', id: accountId },
        details: { reason: 'payment failed', failure: failure.slice(0, 200) },
      })
      const reason = failure.slice(0, 500)
      const now = services.now()
      await emitEvent(
        q,
        {
          accountId,
          type: 'payment.failed',
          livemode: true,
          data: { kind: 'auto_recharge', pack, amountCents: PACK_PRICE_CENTS[pack], reason },
        },
        now,
      )
      await emitEvent(
        q,
        { accountId, type: 'auto_recharge.failed', livemode: true, data: { pack, reason, autoRechargeDisabled: true } },
        now,
      )
    })
    services.log(`[billing] auto-recharge failed for account ${accountId}; turned off`)
    await services.mailer.send(
      a.email,
      'Auto-recharge failed and is now off',
      `We could not charge your saved card for the ${pack} pack (${failure}).\n\nAuto-recharge has been turned off so that we do not try again. ` +
        `Update your card by buying a pack on the billing page, then turn auto-recharge back on.`,
    )
  }
}

/** payment.succeeded (C17), in the transaction that grants the payment's credits. */
async function paymentSucceeded(q: Query, services: Services, accountId: string, data: Record<string, string | number>): Promise<void> {
  await emitEvent(q, { accountId, type: 'payment.succeeded', livemode: true, data }, services.now())
}

const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1)
