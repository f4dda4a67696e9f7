// Payments through the official stripe client against a fake Stripe on loopback: checkout → webhook →
// credits, once per event; bad signatures refused; plan renewals; auto-recharge once per crossing.
import t from 'tap'
import { systemActing } from '../../core/audit/audit.ts'
import Stripe from 'stripe'
import { createAccount } from '../../core/accounts/accounts.ts'
import { setAutoRecharge, startCheckout, STRIPE_FUTURE_TOLERANCE_SECONDS } from '../../core/billing/billing.ts'
import { createLogger } from '../../core/observability/log.ts'
import { renewPlans } from '../../core/accounts/accounts.ts'
import { startFakeStripe } from '../../devkit/fake-stripe.ts'
import { startTestApp, testCapability, type TestApp } from '../helpers/app.ts'

const stripe = await startFakeStripe(t)
const logged: Array<{ level: number; msg: string; reason?: string; stripeEvent?: string }> = []
const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'echo-test', price: 5 })],
  worker: true,
  logger: createLogger({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  env: { STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url },
})
stripe.webhookUrl = `${app.url}/stripe/webhook`
const { db } = app.services

let n = 0
async function account(a: TestApp = app) {
  return (await createAccount(a.services.db, { email: `buyer${++n}-${process.pid}@example.test` }, a.services.now())).id
}
const sessionId = (url: string) => url.split('/pay/')[1]!
const grants = async (accountId: string) =>
  Number((await db.sql(`select count(*) as n from payment_grants where account_id = ?`, [accountId]))[0]!.n)

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

t.test('checkout for a pack → signed webhook → the pack credits, the card saved', async (t) => {
  const id = await account()
  const url = await startCheckout(app.services, id, { pack: 'starter' }, app.url)
  t.match(url, `${stripe.url}/pay/`)
  const session = stripe.sessions.get(sessionId(url))
  t.equal(session.mode, 'payment')
  t.equal(session.amount_total, 2000, '$20 for 2,000 credits')
  t.equal(session.payment_intent_data.setup_future_usage, 'off_session', 'the card is saved for auto-recharge')
  t.equal((await app.ledger(id)).balance, 0, 'nothing before payment')

  const { status, event } = await stripe.complete(session.id)
  t.equal(status, 200)
  const ledger = await app.ledger(id)
  t.equal(ledger.balance, 2000)
  t.equal(ledger.ledgerSum, 2000, 'balance == sum(ledger)')
  const [row] = await db.sql(`select stripe_customer_id, stripe_payment_method from accounts where id = ?`, [id])
  t.match(row, { stripe_customer_id: /^cus_/, stripe_payment_method: /^pm_/ })

  t.test('the same event delivered again (and five at once) grants nothing more', async (t) => {
    t.equal((await stripe.deliver(event)).status, 200, 'a redelivery is acknowledged')
    const again = await Promise.all(Array.from({ length: 5 }, () => stripe.deliver(event)))
    t.same(
      again.map((r) => r.status),
      [200, 200, 200, 200, 200],
    )
    t.equal((await app.ledger(id)).balance, 2000)
    t.equal(await grants(id), 1)
  })
})

t.test('a bad signature is 400 and grants nothing', async (t) => {
  const id = await account()
  const url = await startCheckout(app.services, id, { pack: 'growth' }, app.url)
  const session = stripe.sessions.get(sessionId(url))
  session.status = 'complete'
  session.payment_status = 'paid'
  session.subscription = null
  const event = stripe.event('checkout.session.completed', { ...session, line_items: undefined, payment_intent: null })
  const forged = await stripe.deliver(event, `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`)
  t.equal(forged.status, 400)
  t.equal(JSON.parse(forged.text).error.code, 'invalid_request')
  const unsigned = await fetch(stripe.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  })
  t.equal(unsigned.status, 400, 'no signature at all')
  // A valid signature of another body: the event cannot be altered after Stripe signed it.
  const other = stripe.event('checkout.session.completed', { id: 'cs_other', mode: 'payment', metadata: {} })
  const header = (await fetch(`${stripe.url}/sign`, { method: 'POST', body: JSON.stringify(other) })).headers.get('stripe-signature')!
  t.equal((await stripe.deliver(event, header)).status, 400, 'a signature of another body')
  t.equal((await app.ledger(id)).balance, 0)
  t.equal(await grants(id), 0)
})

t.test('the first pack once; its checkout is refused afterwards', async (t) => {
  const id = await account()
  const url = await startCheckout(app.services, id, { pack: 'first' }, app.url)
  t.equal(stripe.sessions.get(sessionId(url)).amount_total, 500)
  await stripe.complete(sessionId(url))
  t.equal((await app.ledger(id)).balance, 500)
  await t.rejects(startCheckout(app.services, id, { pack: 'first' }, app.url), { code: 'first_pack_used' })
})

t.test('a plan: checkout grants the bundle, invoice.paid renewals grant each period once, cancel ends it', async (t) => {
  const id = await account()
  const url = await startCheckout(app.services, id, { plan: 'developer' }, app.url)
  const session = stripe.sessions.get(sessionId(url))
  t.equal(session.mode, 'subscription')
  t.equal(session.line_items[0].price_data.recurring.interval, 'month')
  t.equal(session.amount_total, 1900)
  await stripe.complete(session.id)
  let [row] = await db.sql(`select plan, plan_renews_at, stripe_subscription_id from accounts where id = ?`, [id])
  t.match(row, { plan: 'developer', plan_renews_at: null, stripe_subscription_id: /^sub_/ })
  t.equal((await app.ledger(id)).balance, 1900)

  const renewal = await stripe.renew(row!.stripe_subscription_id)
  t.equal(renewal.status, 200)
  t.equal((await app.ledger(id)).balance, 3800, 'one period renewed')
  await stripe.deliver(renewal.event)
  t.equal((await app.ledger(id)).balance, 3800, 'the same invoice event again grants nothing')
  await stripe.renew(row!.stripe_subscription_id)
  t.equal((await app.ledger(id)).balance, 5700, 'the next period renews')
  await renewPlans(db, new Date(Date.now() + 400 * 86400_000))
  t.equal((await app.ledger(id)).balance, 5700, 'the maintenance pass does not renew a Stripe-billed plan a second time')
  const [entry] = await db.sql(`select kind, reference from ledger where account_id = ? order by id desc limit 1`, [id])
  t.match(entry, { kind: 'plan_grant', reference: /^plan developer renewal in_/ })

  await t.rejects(startCheckout(app.services, id, { plan: 'team' }, app.url), { code: 'invalid_request' }, 'one subscription at a time')
  const { cancelPlan } = await import('../../core/billing/billing.ts')
  await cancelPlan(app.services, id)
  // Stripe answers the cancel, then sends customer.subscription.deleted.
  row = await waitFor(
    'the plan to end',
    async () => (await db.sql(`select plan, stripe_subscription_id from accounts where id = ? and plan = 'none'`, [id]))[0],
  )
  t.match(row, { plan: 'none', stripe_subscription_id: null })
  t.equal((await app.ledger(id)).balance, 5700, 'granted credits stay')
})

async function cardHolder() {
  const c = await app.customer(0)
  await stripe.complete(sessionId(await startCheckout(app.services, c.accountId, { pack: 'starter' }, app.url)))
  return c
}

t.test('auto-recharge: 50 concurrent captures across the threshold → one off-session charge, one grant', async (t) => {
  const c = await cardHolder()
  await t.rejects(
    setAutoRecharge(app.services, (await app.customer(0)).accountId, { threshold: 100, pack: 'starter' }, systemActing(new Date())),
    { code: 'invalid_request' },
    'needs a saved card',
  )
  await setAutoRecharge(app.services, c.accountId, { threshold: 1900, pack: 'growth' }, systemActing(new Date()))
  const before = stripe.paymentIntents.filter((p) => p.off_session).length
  const calls = await Promise.all(
    Array.from({ length: 50 }, (_, i) => app.call('/v1/echo-test', { key: c.key, body: { text: `call ${i}` } })),
  )
  t.same([...new Set(calls.map((r) => r.status))], [200], 'all 50 calls succeed')
  const charged = await waitFor('the recharge', async () => {
    const [r] = await db.sql(`select balance, recharge_pending from accounts where id = ?`, [c.accountId])
    return !r!.recharge_pending && Number(r!.balance) > 2000 - 250 && r
  })
  t.equal(Number(charged.balance), 2000 - 250 + 10500, 'one growth pack after 50 × 5 credits')
  await new Promise((r) => setTimeout(r, 1500))
  const offSession = stripe.paymentIntents.filter((p) => p.off_session).slice(before)
  t.equal(offSession.length, 1, 'exactly one off-session charge')
  t.match(offSession[0], {
    amount: 10000,
    confirm: true,
    customer: /^cus_/,
    payment_method: /^pm_/,
    metadata: { accountId: c.accountId, pack: 'growth' },
  })
  const [g] = await db.sql(`select count(*) as n from payment_grants where account_id = ? and kind = 'auto_recharge'`, [c.accountId])
  t.equal(Number(g!.n), 1)
  const ledger = await app.ledger(c.accountId)
  t.equal(ledger.balance, ledger.ledgerSum, 'balance == sum(ledger)')

  // Above the threshold again: a later charge that stays above it does nothing.
  await app.call('/v1/echo-test', { key: c.key, body: { text: 'one more' } })
  await new Promise((r) => setTimeout(r, 1500))
  t.equal(stripe.paymentIntents.filter((p) => p.off_session).length, before + 1)
})

t.test('a declined recharge turns auto-recharge off and emails the account', async (t) => {
  const c = await cardHolder()
  const mails: { to: string; subject: string; text: string }[] = []
  const mailer = app.services.mailer
  app.services.mailer = { send: async (to, subject, text) => void mails.push({ to, subject, text }) }
  t.teardown(() => {
    app.services.mailer = mailer
    stripe.decline = false
  })
  stripe.decline = true
  await setAutoRecharge(app.services, c.accountId, { threshold: 1999, pack: 'starter' }, systemActing(new Date()))
  t.equal((await app.call('/v1/echo-test', { key: c.key, body: { text: 'cross' } })).status, 200)
  const off = await waitFor('auto-recharge off', async () => {
    const [r] = await db.sql(`select auto_recharge_threshold, recharge_pending from accounts where id = ?`, [c.accountId])
    return r!.auto_recharge_threshold === null && !r!.recharge_pending && r
  })
  t.ok(off)
  await waitFor('the email', async () => mails.length > 0)
  const [email] = await db.sql(`select email from accounts where id = ?`, [c.accountId])
  t.match(mails[0], { to: email!.email, subject: /Auto-recharge failed/, text: /declined/ })
  t.equal((await app.ledger(c.accountId)).balance, 1995, 'nothing granted')
  stripe.decline = false
  await app.call('/v1/echo-test', { key: c.key, body: { text: 'again' } })
  await new Promise((r) => setTimeout(r, 1500))
  t.equal(mails.length, 1, 'off means no further attempts')
})

/** A paid Checkout Session as Stripe reports it, for events built by hand. */
async function paidSession(item: { pack: 'starter' | 'scale' | 'first' } | { plan: 'developer' }) {
  const id = await account()
  const session = stripe.sessions.get(sessionId(await startCheckout(app.services, id, item, app.url)))
  Object.assign(session, { status: 'complete', payment_status: 'paid', customer: 'cus_hand', payment_intent: null })
  const { line_items: _l, payment_intent_data: _p, subscription_data: _s, ...object } = session
  return { id, object }
}

t.test('finding 6: one Checkout Session under two event ids (also at once) grants once', async (t) => {
  const { id, object } = await paidSession({ pack: 'starter' })
  const events = Array.from({ length: 4 }, () => stripe.event('checkout.session.completed', object))
  const answers = await Promise.all(events.map((e) => stripe.deliver(e)))
  t.same(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
    'every delivery is acknowledged',
  )
  t.equal((await stripe.deliver(stripe.event('checkout.session.completed', object))).status, 200, 'and a later one')
  t.equal((await app.ledger(id)).balance, 2000, 'the pack once')
  t.equal(await grants(id), 1)
})

t.test('finding 6: one invoice under two event ids renews once', async (t) => {
  const { id, object } = await paidSession({ plan: 'developer' })
  await stripe.deliver(stripe.event('checkout.session.completed', { ...object, subscription: 'sub_hand1' }))
  t.equal((await app.ledger(id)).balance, 1900)
  const invoice = {
    id: 'in_hand1',
    object: 'invoice',
    billing_reason: 'subscription_cycle',
    amount_paid: 1900,
    currency: 'usd',
    parent: { subscription_details: { subscription: 'sub_hand1' } },
  }
  for (let i = 0; i < 3; i++) t.equal((await stripe.deliver(stripe.event('invoice.paid', invoice))).status, 200)
  t.equal((await app.ledger(id)).balance, 3800, 'one renewal')
})

t.test('finding 6: an amount or currency that is not the price grants nothing, is logged, and is acknowledged', async (t) => {
  for (const [item, wrong] of [
    [{ pack: 'scale' }, { amount_total: 1 }],
    [{ pack: 'starter' }, { currency: 'eur' }],
    [{ pack: 'first' }, { amount_total: 50000 }],
    [{ plan: 'developer' }, { amount_total: 100 }],
  ] as const) {
    const { id, object } = await paidSession(item)
    const event = stripe.event('checkout.session.completed', { ...object, ...wrong, subscription: 'sub_x' })
    const res = await stripe.deliver(event)
    t.equal(res.status, 200, `${JSON.stringify(item)} ${JSON.stringify(wrong)}: 200, so Stripe does not retry`)
    t.equal((await app.ledger(id)).balance, 0, 'nothing granted')
    t.equal(await grants(id), 0)
    const line = logged.find((l) => l.stripeEvent === event.id)
    t.match(line, { level: 50, msg: 'stripe event refused', reason: /paid/ }, 'logged as an error for the operator')
  }
  const plan = await paidSession({ plan: 'developer' })
  await stripe.deliver(stripe.event('checkout.session.completed', { ...plan.object, subscription: 'sub_hand2' }))
  t.equal((await app.ledger(plan.id)).balance, 1900, 'the plan started at its price')
  const cheap = { id: 'in_cheap', billing_reason: 'subscription_cycle', amount_paid: 1, currency: 'usd', subscription: 'sub_hand2' }
  t.equal((await stripe.deliver(stripe.event('invoice.paid', cheap))).status, 200)
  t.equal((await app.ledger(plan.id)).balance, 1900, 'an underpaid renewal grants nothing')
})

t.test('finding 6: signed but unexpected events are acknowledged (200) and logged, never a 500', async (t) => {
  const { id, object } = await paidSession({ pack: 'starter' })
  const unknownAccount = '00000000-0000-4000-8000-000000000000'
  const cases: Array<[string, unknown]> = [
    ['unknown account', { ...object, metadata: { accountId: unknownAccount, pack: 'starter' }, client_reference_id: unknownAccount }],
    ['non-uuid account', { ...object, metadata: { accountId: 'acct-1', pack: 'starter' }, client_reference_id: 'acct-1' }],
    ['unknown pack', { ...object, metadata: { accountId: id, pack: 'toString' } }],
    ['prototype pack', { ...object, metadata: { accountId: id, pack: '__proto__' } }],
    ['metadata of the wrong type', { ...object, metadata: ['x'] }],
    ['no object', undefined],
    ['null object', null],
    ['a string', 'cs_x'],
    ['unpaid', { ...object, payment_status: 'unpaid' }],
  ]
  for (const [what, o] of cases) {
    const event = stripe.event('checkout.session.completed', o)
    if (o === undefined) delete event.data
    const res = await stripe.deliver(event)
    t.equal(res.status, 200, what)
    t.ok(
      logged.some((l) => l.stripeEvent === event.id && l.reason),
      `${what}: logged with the reason`,
    )
  }
  for (const type of ['invoice.paid', 'customer.subscription.deleted', 'charge.refunded', 'x.y'])
    t.equal((await stripe.deliver(stripe.event(type, { id: 42 }))).status, 200, type)
  t.equal((await app.ledger(id)).balance, 0, 'nothing granted')
  t.equal(await grants(id), 0)
})

t.test('finding 6: a signature timestamped in the future beyond the tolerance is refused', async (t) => {
  const { id, object } = await paidSession({ pack: 'starter' })
  const signer = new Stripe('sk_test_fake')
  const deliverAt = (seconds: number) => {
    const event = stripe.event('checkout.session.completed', object)
    const payload = JSON.stringify(event)
    const timestamp = Math.floor(Date.now() / 1000) + seconds
    return stripe.deliver(event, signer.webhooks.generateTestHeaderString({ payload, secret: stripe.webhookSecret, timestamp }))
  }
  t.equal((await deliverAt(3600)).status, 400, 'an hour ahead')
  t.equal((await deliverAt(STRIPE_FUTURE_TOLERANCE_SECONDS + 30)).status, 400, 'just past the tolerance')
  t.equal((await deliverAt(-400)).status, 400, 'older than Stripe’s 5 minutes')
  t.equal((await app.ledger(id)).balance, 0)
  t.equal((await deliverAt(10)).status, 200, 'a few seconds of clock skew is fine')
  t.equal((await app.ledger(id)).balance, 2000)
})
