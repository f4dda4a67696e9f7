// /dashboard: server-rendered pages for the account owner. Authorization is the session's account: every
// query below filters by it, and a key or delivery of another account is simply not found.
import { readFileSync } from 'node:fs'
import type Router from '@koa/router'
import { strictRouter } from '../pipeline/routing.ts'
import bodyParser from 'koa-bodyparser'
import type { Context, Next } from 'koa'
import {
  createKey,
  getAccount,
  revokeKey,
  rotateWebhookSecret,
  updateKey,
  PACKS,
  PLANS,
  type Pack,
  type Plan,
} from '../accounts/accounts.ts'
import { cancelPlan, RECHARGE_PACKS, setAutoRecharge, startCheckout, type RechargePack } from '../billing/billing.ts'
import { serviceUnavailable } from '../db/faults.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { dailyTotals, ledgerCsv, listLedger, type UsageFilter } from '../usage/usage.ts'
import { preSessionToken, PRE_SESSION_COOKIE, tokensMatch } from './csrf.ts'
import { endSession, loadSession, redeemSignInLink, sendSignInLink, SESSION_TTL_MS, type Session } from './session.ts'
import * as views from './views.ts'

const SESSION_COOKIE = 'dash_session'
const CSS = readFileSync(new URL('./assets/app.css', import.meta.url), 'utf8')
const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,60}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DAY = /^\d{4}-\d{2}-\d{2}$/
const NOTICES: Record<string, string> = {
  revoked: 'The key is revoked. Calls with it are refused from now on.',
  cap: 'The monthly spend cap is saved.',
  'checkout-done': 'Payment received. Credits appear as soon as Stripe confirms it, usually within seconds.',
  'checkout-cancelled': 'Checkout cancelled; nothing was charged.',
  cancelled: 'Your plan is cancelled. Credits already granted stay on your balance.',
  recharge: 'Auto-recharge settings saved.',
}

interface DashState {
  session: Session
  sessionId: string
}

export function dashboardRouter(services: Services): Router {
  const router = strictRouter()
  const { db } = services
  const parseForm = bodyParser({
    enableTypes: ['form'],
    formLimit: '16kb',
    onerror: () => {
      throw new ApiError('invalid_request', 'The form could not be read.')
    },
  })
  // Links in emails and Stripe redirects never take their host from the request (Host header poisoning).
  const origin = () => services.config.dashboardUrl ?? `http://localhost:${services.config.port}`
  const cookieOptions = (ctx: Context) => ({
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.secure,
    path: '/dashboard',
    overwrite: true,
  })
  const form = (ctx: Context) => (ctx.request.body ?? {}) as Record<string, string | undefined>

  // Errors become pages, not JSON; the page never shows internals.
  router.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.set('X-Frame-Options', 'DENY')
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
    )
    ctx.set('Referrer-Policy', 'same-origin')
    try {
      await next()
    } catch (e) {
      const err = e instanceof ApiError ? e : serviceUnavailable(e) // a database outage is a 503 page, not a bug
      if (!err) services.log(`[error] ${ctx.state.requestId} ${ctx.method} ${ctx.path}: ${(e as Error).stack ?? String(e)}`)
      for (const [k, v] of Object.entries(err?.headers ?? {})) ctx.set(k, v)
      ctx.status = err?.status ?? 500
      ctx.type = 'html'
      const back = ctx.method === 'POST' ? (ctx.get('Referer').startsWith(origin()) ? ctx.get('Referer') : '/dashboard') : '/dashboard'
      ctx.body = views.messagePage(ctx.status, err?.message ?? 'Something went wrong on our side. It has been logged.', back)
    }
  })

  // POST bodies are forms; every POST carries a valid CSRF token (session or pre-session).
  router.use(async (ctx, next) => {
    if (ctx.method !== 'POST') {
      await next()
      return
    }
    await parseForm(ctx, async () => {})
    const session = await loadSession(services, ctx.cookies.get(SESSION_COOKIE))
    const preSession = ctx.path === '/dashboard/login' || ctx.path === '/dashboard/login/verify'
    const expected = preSession ? ctx.cookies.get(PRE_SESSION_COOKIE) : session?.csrfToken
    if (!tokensMatch(form(ctx)._csrf, expected))
      throw new ApiError('invalid_request', 'This form has expired. Go back, reload the page and try again.')
    await next()
  })

  const signedIn = async (ctx: Context, next: Next) => {
    const sessionId = ctx.cookies.get(SESSION_COOKIE)
    const session = await loadSession(services, sessionId)
    if (!session) {
      if (ctx.method === 'GET') return ctx.redirect('/dashboard/login')
      throw new ApiError('unauthorized', 'Your session has ended. Sign in again.')
    }
    ctx.state.dash = { session, sessionId: sessionId! } satisfies DashState
    await next()
  }
  const state = (ctx: Context): DashState => ctx.state.dash as DashState
  const frame = async (ctx: Context, active: views.Page, extra: { notice?: string; error?: string } = {}): Promise<views.Frame> => {
    const { session } = state(ctx)
    const account = await getAccount(db, session.accountId)
    const done = typeof ctx.query.done === 'string' ? NOTICES[ctx.query.done] : undefined
    return { email: account.email, csrf: session.csrfToken, active, ...(done ? { notice: done } : {}), ...extra }
  }
  const page = (ctx: Context, body: string) => {
    ctx.type = 'html'
    ctx.body = body
  }

  router.get('/dashboard/assets/app.css', (ctx) => {
    ctx.type = 'text/css'
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.body = CSS
  })

  // Sign-in.
  router.get('/dashboard/login', (ctx) => page(ctx, views.signInPage(preSessionToken(ctx))))
  router.post('/dashboard/login', async (ctx) => {
    const email = (form(ctx).email ?? '').trim().toLowerCase()
    if (!EMAIL.test(email) || email.length > 254) {
      ctx.status = 400
      return page(ctx, views.signInPage(preSessionToken(ctx), { error: 'Enter a valid email address.' }))
    }
    // Per minute; RATE_LIMITS can override both like any endpoint's limit.
    const limits = services.config.rateLimits
    const perEmail = await services.limiter.consume('dashboard-login-email', email, limits['dashboard-login-email'] ?? 3)
    const perAddress = await services.limiter.consume('dashboard-login-ip', ctx.ip, limits['dashboard-login-ip'] ?? 10)
    if (!perEmail.allowed || !perAddress.allowed) {
      ctx.set('Retry-After', String(Math.max(perEmail.resetSeconds, perAddress.resetSeconds)))
      throw new ApiError('rate_limited', 'Too many sign-in links were requested. Wait a minute, then try again.')
    }
    await sendSignInLink(services, email, origin())
    page(ctx, views.signInPage(preSessionToken(ctx), { sent: true }))
  })
  // The link opens a confirmation form: mail scanners that fetch links must not use up the one-time token.
  router.get('/dashboard/login/verify', (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : ''
    page(ctx, views.verifyPage(preSessionToken(ctx), token))
  })
  router.post('/dashboard/login/verify', async (ctx) => {
    const token = form(ctx).token ?? ''
    const redeemed = /^[A-Za-z0-9_-]{43}$/.test(token) ? await redeemSignInLink(services, token) : null
    if (!redeemed) {
      ctx.status = 400
      return page(
        ctx,
        views.signInPage(preSessionToken(ctx), { error: 'This sign-in link has expired or was already used. Ask for a new one.' }),
      )
    }
    ctx.cookies.set(SESSION_COOKIE, redeemed.sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
  router.post('/dashboard/logout', signedIn, async (ctx) => {
    await endSession(services, state(ctx).sessionId)
    ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 })
    ctx.redirect('/dashboard/login')
  })

  router.get('/dashboard', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const account = await getAccount(db, accountId)
    const today = services.now()
    const daily = await dailyTotals(db, accountId, {
      from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 29)),
    })
    page(ctx, views.overviewPage(await frame(ctx, 'overview'), { ...account, daily, today }))
  })

  // Keys.
  const keyRows = async (accountId: string) =>
    (
      await db.sql<{
        id: string
        prefix: string
        name: string | null
        monthly_spend_cap: string | null
        month_spend: string
        created_at: string
        revoked_at: string | null
      }>(
        `select id, prefix, name, monthly_spend_cap, key_month_spend(api_keys, ?) as month_spend,
                created_at, revoked_at from api_keys where account_id = ? order by created_at desc`,
        [services.now(), accountId],
      )
    ).map((r) => ({
      id: r.id,
      prefix: r.prefix,
      name: r.name,
      monthlySpendCap: r.monthly_spend_cap == null ? null : Number(r.monthly_spend_cap),
      monthSpend: Number(r.month_spend),
      createdAt: new Date(r.created_at).toISOString(),
      revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
    }))
  const ownKey = async (accountId: string, keyId: string | undefined) => {
    const [row] =
      keyId && UUID.test(keyId)
        ? await db.sql(`select id from api_keys where id = ? and account_id = ? and revoked_at is null`, [keyId, accountId])
        : []
    if (!row) throw new ApiError('not_found', 'No such key on this account.')
    return row.id as string
  }
  const capOf = (raw: string | undefined): number | null => {
    if (raw === undefined || raw.trim() === '') return null
    if (!/^\d{1,12}$/.test(raw.trim())) throw new ApiError('invalid_request', 'The monthly cap is a whole number of credits.')
    return Number(raw.trim())
  }
  router.get('/dashboard/keys', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    page(ctx, views.keysPage(await frame(ctx, 'keys'), await keyRows(accountId), (await getAccount(db, accountId)).plan))
  })
  router.post('/dashboard/keys', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const name = (form(ctx).name ?? '').trim().slice(0, 200) || undefined
    const created = await createKey(db, accountId, { ...(name ? { name } : {}), monthlySpendCap: capOf(form(ctx).monthlySpendCap) })
    // Rendered in this response, never stored or redirected: the secret is shown once.
    page(
      ctx,
      views.keysPage(await frame(ctx, 'keys'), await keyRows(accountId), (await getAccount(db, accountId)).plan, {
        key: created.key,
        name: created.name,
      }),
    )
  })
  router.post('/dashboard/keys/:id/revoke', signedIn, async (ctx) => {
    await revokeKey(db, await ownKey(state(ctx).session.accountId, ctx.params.id), services.keys, services.now())
    ctx.redirect('/dashboard/keys?done=revoked')
  })
  router.post('/dashboard/keys/:id/cap', signedIn, async (ctx) => {
    await updateKey(db, await ownKey(state(ctx).session.accountId, ctx.params.id), { monthlySpendCap: capOf(form(ctx).monthlySpendCap) })
    ctx.redirect('/dashboard/keys?done=cap')
  })

  // Webhooks.
  const webhooks = async (ctx: Context, shown?: { secret: string; rotated?: boolean }) => {
    const { accountId } = state(ctx).session
    const [account] = await db.sql<{ has_secret: boolean }>(`select webhook_secret is not null as has_secret from accounts where id = ?`, [
      accountId,
    ])
    const rows = await db.sql<{
      id: string
      job_id: string
      endpoint: string
      event: string
      url: string
      status: string
      attempts: number
      updated_at: string
      last_code: number | null
    }>(
      `select d.id, d.job_id, j.endpoint, d.event, d.url, d.status, d.attempts, d.updated_at,
              (select a.status_code from webhook_attempts a where a.delivery_id = d.id order by a.attempt desc limit 1) as last_code
         from webhook_deliveries d join jobs j on j.id = d.job_id
        where d.account_id = ? order by d.created_at desc limit 25`,
      [accountId],
    )
    const deliveries = rows.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      endpoint: r.endpoint,
      event: r.event,
      url: r.url,
      status: r.status,
      attempts: Number(r.attempts),
      lastStatusCode: r.last_code == null ? null : Number(r.last_code),
      updatedAt: new Date(r.updated_at).toISOString(),
    }))
    page(ctx, views.webhooksPage(await frame(ctx, 'webhooks'), { hasSecret: account!.has_secret, deliveries, ...(shown ?? {}) }))
  }
  router.get('/dashboard/webhooks', signedIn, (ctx) => webhooks(ctx))
  router.post('/dashboard/webhooks/reveal', signedIn, async (ctx) => {
    const [row] = await db.sql<{ webhook_secret: string | null }>(`select webhook_secret from accounts where id = ?`, [
      state(ctx).session.accountId,
    ])
    if (!row?.webhook_secret) throw new ApiError('not_found', 'There is no signing secret yet.')
    await webhooks(ctx, { secret: services.secrets.open(row.webhook_secret) })
  })
  router.post('/dashboard/webhooks/rotate', signedIn, async (ctx) => {
    const { secret } = await rotateWebhookSecret(db, state(ctx).session.accountId, services.secrets, services.now())
    await webhooks(ctx, { secret, rotated: true })
  })

  // Usage.
  const usageFilter = (ctx: Context): UsageFilter & { fromText?: string; toText?: string } => {
    const q = ctx.query as Record<string, string | undefined>
    const f: UsageFilter & { fromText?: string; toText?: string } = {}
    if (q.endpoint && /^[a-z0-9-]{1,64}$/.test(q.endpoint)) f.endpoint = q.endpoint
    if (q.keyId && UUID.test(q.keyId)) f.keyId = q.keyId
    if (q.from && DAY.test(q.from) && !isNaN(Date.parse(q.from))) {
      f.from = new Date(q.from + 'T00:00:00Z')
      f.fromText = q.from
    }
    if (q.to && DAY.test(q.to) && !isNaN(Date.parse(q.to))) {
      f.to = new Date(Date.parse(q.to + 'T00:00:00Z') + 86400_000)
      f.toText = q.to
    }
    return f
  }
  router.get('/dashboard/usage', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const filter = usageFilter(ctx)
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor.length <= 64 ? ctx.query.cursor : undefined
    const ledgerPage = await listLedger(db, accountId, filter, { limit: 50, ...(cursor ? { cursor } : {}) })
    const keys = (await keyRows(accountId)).map((k) => ({
      id: k.id,
      label: `${k.name ?? 'unnamed'} (${k.prefix}…)${k.revokedAt ? ' · revoked' : ''}`,
    }))
    const query = new URLSearchParams()
    for (const [k, v] of Object.entries({ endpoint: filter.endpoint, keyId: filter.keyId, from: filter.fromText, to: filter.toText }))
      if (v) query.set(k, v)
    const endpoints = [...services.capabilities.keys()].sort()
    page(ctx, views.usagePage(await frame(ctx, 'usage'), { filter, ...ledgerPage, keys, endpoints, query }))
  })
  router.get('/dashboard/usage.csv', signedIn, async (ctx) => {
    ctx.type = 'text/csv; charset=utf-8'
    ctx.attachment(`usage-${services.now().toISOString().slice(0, 10)}.csv`)
    ctx.body = await ledgerCsv(db, state(ctx).session.accountId, usageFilter(ctx))
  })

  // Billing.
  router.get('/dashboard/billing', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const account = await getAccount(db, accountId)
    const [row] = await db.sql<{
      first_pack_used: boolean
      stripe_subscription_id: string | null
      stripe_payment_method: string | null
      auto_recharge_threshold: number | null
      auto_recharge_pack: RechargePack | null
    }>(
      `select first_pack_used, stripe_subscription_id, stripe_payment_method, auto_recharge_threshold, auto_recharge_pack from accounts where id = ?`,
      [accountId],
    )
    const done = ctx.query.checkout === 'done' ? 'checkout-done' : ctx.query.checkout === 'cancelled' ? 'checkout-cancelled' : undefined
    page(
      ctx,
      views.billingPage(await frame(ctx, 'billing', done ? { notice: NOTICES[done]! } : {}), {
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
  router.post('/dashboard/billing/checkout', signedIn, async (ctx) => {
    const { pack, plan } = form(ctx)
    const item =
      pack && pack in PACKS
        ? { pack: pack as Pack }
        : plan && plan in PLANS && plan !== 'none'
          ? { plan: plan as Exclude<Plan, 'none'> }
          : null
    if (!item) throw new ApiError('invalid_request', 'Choose a pack or a plan.')
    ctx.status = 303
    ctx.redirect(await startCheckout(services, state(ctx).session.accountId, item, origin()))
  })
  router.post('/dashboard/billing/cancel', signedIn, async (ctx) => {
    await cancelPlan(services, state(ctx).session.accountId)
    ctx.redirect('/dashboard/billing?done=cancelled')
  })
  router.post('/dashboard/billing/auto-recharge', signedIn, async (ctx) => {
    const f = form(ctx)
    if (f.off) await setAutoRecharge(services, state(ctx).session.accountId, null)
    else {
      const threshold = (f.threshold ?? '').trim()
      if (!/^\d{1,9}$/.test(threshold) || Number(threshold) < 1)
        throw new ApiError('invalid_request', 'The threshold is a whole number of credits, at least 1.')
      if (!RECHARGE_PACKS.includes(f.pack as RechargePack)) throw new ApiError('invalid_request', 'Choose the pack to buy.')
      await setAutoRecharge(services, state(ctx).session.accountId, { threshold: Number(threshold), pack: f.pack as RechargePack })
    }
    ctx.redirect('/dashboard/billing?done=recharge')
  })
  return router
}
