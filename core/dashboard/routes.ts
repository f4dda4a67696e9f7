// /dashboard: server-rendered pages for the account owner. Authorization is the session's account: every
// query below filters by it, and a key or delivery of another account is simply not found.
import { readFileSync } from 'node:fs'
import type Router from '@koa/router'
import { strictRouter } from '../pipeline/routing.ts'
import bodyParser from 'koa-bodyparser'
import type { Context, Next } from 'koa'
import { createKey, getAccount, openTestKey, revokeKey, rotateWebhookSecret, updateKey } from '../accounts/accounts.ts'
import { cancelPlan, setAutoRecharge, startCheckout, type RechargePack } from '../billing/billing.ts'
import { serviceUnavailable } from '../db/faults.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { dailyTotals, ledgerCsv, listLedger, type UsageFilter } from '../usage/usage.ts'
import { inputReader } from '../validation.ts'
import { preSessionToken, PRE_SESSION_COOKIE, tokensMatch } from './csrf.ts'
import { FORMS, QUERIES } from './inputs.ts'
import { requestsPage, requestsPageData } from './requests-page.ts'
import { endSession, loadSession, redeemSignInLink, sendSignInLink, signInLinkEmail, SESSION_TTL_MS, type Session } from './session.ts'
import * as views from './views.ts'

const SESSION_COOKIE = 'dash_session'
const CSS = readFileSync(new URL('./assets/app.css', import.meta.url), 'utf8')
const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,60}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// A Map: a notice name comes from the query string, and a plain object would answer `constructor` too.
const NOTICES = new Map<string, string>([
  ['revoked', 'The key is revoked. Calls with it are refused from now on.'],
  ['cap', 'The monthly spend cap is saved.'],
  ['checkout-done', 'Payment received. Credits appear as soon as Stripe confirms it, usually within seconds.'],
  ['checkout-cancelled', 'Checkout cancelled; nothing was charged.'],
  ['cancelled', 'Your plan is cancelled. Credits already granted stay on your balance.'],
  ['recharge', 'Auto-recharge settings saved.'],
])
const read = {
  form: Object.fromEntries(Object.entries(FORMS).map(([k, schema]) => [k, inputReader(schema, 'form')])) as {
    [K in keyof typeof FORMS]: ReturnType<typeof inputReader<(typeof FORMS)[K]>>
  },
  query: Object.fromEntries(Object.entries(QUERIES).map(([k, schema]) => [k, inputReader(schema, 'query')])) as {
    [K in keyof typeof QUERIES]: ReturnType<typeof inputReader<(typeof QUERIES)[K]>>
  },
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
  // Secure whenever the public URL is https (a TLS-terminating proxy may speak plain http to us), or the
  // connection itself is (TRUST_PROXY and X-Forwarded-Proto).
  const secureCookies = (ctx: Context) => {
    const secure = ctx.secure || origin().startsWith('https:')
    if (secure) ctx.cookies.secure = true // the cookies module refuses a Secure cookie on a connection it thinks is plain
    return secure
  }
  const cookieOptions = (ctx: Context) => ({
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secureCookies(ctx),
    path: '/dashboard',
    overwrite: true,
  })
  const csrfToken = (ctx: Context) => preSessionToken(ctx, secureCookies(ctx))
  /** A same-origin path from a URL the client sent (Referer), or null: origins are compared exactly. */
  const sameOriginPath = (raw: string): string | null => {
    try {
      const url = new URL(raw)
      return url.origin === origin() ? `${url.pathname}${url.search}` : null
    } catch {
      return null
    }
  }
  const body = (ctx: Context): unknown => ctx.request.body ?? {}

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
      const back = (ctx.method === 'POST' && sameOriginPath(ctx.get('Referer'))) || '/dashboard'
      ctx.body = views.messagePage(ctx.status, err?.message ?? 'Something went wrong on our side. It has been logged.', back)
    }
  })

  // POST bodies are forms; every POST carries a valid CSRF token (session or pre-session).
  router.use(async (ctx, next) => {
    if (ctx.method !== 'POST') {
      await next()
      return
    }
    // A browser names the page a form was sent from; it must be one of ours, origin compared exactly.
    const from = ctx.get('Origin')
    if (from && from !== origin())
      throw new ApiError(
        'invalid_request',
        `This form was sent from ${from.slice(0, 100)}; this dashboard is ${origin()} (DASHBOARD_URL). Open it there.`,
      )
    await parseForm(ctx, async () => {})
    const session = await loadSession(services, ctx.cookies.get(SESSION_COOKIE))
    const preSession = ctx.path === '/dashboard/login' || ctx.path === '/dashboard/login/verify'
    const expected = preSession ? ctx.cookies.get(PRE_SESSION_COOKIE) : session?.csrfToken
    if (!tokensMatch((body(ctx) as { _csrf?: unknown })._csrf, expected))
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
    return { email: account.email, csrf: session.csrfToken, active, ...extra }
  }
  /** The notice a redirect after a change asks for (`?done=`), from the page's own query schema. */
  const notice = (done: string | undefined) => {
    const text = done ? NOTICES.get(done) : undefined
    return text ? { notice: text } : {}
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
  router.get('/dashboard/login', (ctx) => {
    read.query.none(ctx.query)
    page(ctx, views.signInPage(csrfToken(ctx)))
  })
  router.post('/dashboard/login', async (ctx) => {
    const email = read.form.login(body(ctx)).email.trim().toLowerCase()
    if (!EMAIL.test(email) || email.length > 254) {
      ctx.status = 400
      return page(ctx, views.signInPage(csrfToken(ctx), { error: 'Enter a valid email address.' }))
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
    page(ctx, views.signInPage(csrfToken(ctx), { sent: true }))
  })
  // The link opens a confirmation form naming the account it signs in to (a link someone else sent you would
  // sign you in to their account: login CSRF); only its POST signs in, so mail scanners cannot use it up.
  const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/
  const expiredLink = (ctx: Context) => {
    ctx.status = 400
    page(ctx, views.signInPage(csrfToken(ctx), { error: 'This sign-in link has expired or was already used. Ask for a new one.' }))
  }
  router.get('/dashboard/login/verify', async (ctx) => {
    const token = read.query.verify(ctx.query).token ?? ''
    const email = LINK_TOKEN.test(token) ? await signInLinkEmail(services, token) : null
    if (!email) return expiredLink(ctx)
    page(ctx, views.verifyPage(csrfToken(ctx), token, email))
  })
  router.post('/dashboard/login/verify', async (ctx) => {
    const { token } = read.form.verify(body(ctx))
    const redeemed = LINK_TOKEN.test(token) ? await redeemSignInLink(services, token) : null
    if (!redeemed) return expiredLink(ctx)
    ctx.cookies.set(SESSION_COOKIE, redeemed.sessionId, { ...cookieOptions(ctx), maxAge: SESSION_TTL_MS })
    ctx.redirect('/dashboard')
  })
  router.post('/dashboard/logout', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await endSession(services, state(ctx).sessionId)
    ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), maxAge: 0 })
    ctx.redirect('/dashboard/login')
  })

  router.get('/dashboard', signedIn, async (ctx) => {
    const { done } = read.query.page(ctx.query)
    const { accountId } = state(ctx).session
    const account = await getAccount(db, accountId)
    const today = services.now()
    const daily = await dailyTotals(db, accountId, {
      from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 29)),
    })
    page(ctx, views.overviewPage(await frame(ctx, 'overview', notice(done)), { ...account, daily, today }))
  })

  // Keys.
  const keyRows = async (accountId: string) =>
    (
      await db.sql<{
        id: string
        prefix: string
        name: string | null
        mode: 'live' | 'test'
        revealable: boolean
        monthly_spend_cap: string | null
        month_spend: string
        created_at: string
        revoked_at: string | null
      }>(
        `select id, prefix, name, mode, sealed_key is not null as revealable, monthly_spend_cap, key_month_spend(api_keys, ?) as month_spend,
                created_at, revoked_at from api_keys where account_id = ? order by created_at desc`,
        [services.now(), accountId],
      )
    ).map((r) => ({
      id: r.id,
      prefix: r.prefix,
      name: r.name,
      mode: r.mode,
      revealable: r.revealable,
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
    const { done } = read.query.page(ctx.query)
    const { accountId } = state(ctx).session
    page(ctx, views.keysPage(await frame(ctx, 'keys', notice(done)), await keyRows(accountId), (await getAccount(db, accountId)).plan))
  })
  router.post('/dashboard/keys', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const f = read.form.createKey(body(ctx))
    const name = (f.name ?? '').trim() || undefined
    const mode = f.mode ?? 'live'
    const created = await createKey(
      db,
      accountId,
      { ...(name ? { name } : {}), mode, monthlySpendCap: capOf(f.monthlySpendCap) },
      services.secrets,
    )
    // Rendered in this response, never redirected: a live key's secret is shown once (a test key's can be shown again).
    page(
      ctx,
      views.keysPage(await frame(ctx, 'keys'), await keyRows(accountId), (await getAccount(db, accountId)).plan, {
        key: created.key,
        name: created.name,
        mode,
      }),
    )
  })
  router.post('/dashboard/keys/:id/reveal', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const shown = await openTestKey(db, services.secrets, accountId, await ownKey(accountId, ctx.params.id))
    if (!shown) throw new ApiError('not_found', 'Only test keys made here can be shown again.')
    const row = (await keyRows(accountId)).find((k) => k.id === shown.id)!
    page(
      ctx,
      views.keysPage(await frame(ctx, 'keys'), await keyRows(accountId), (await getAccount(db, accountId)).plan, {
        key: shown.key,
        name: row.name,
        mode: 'test',
        revealed: true,
      }),
    )
  })
  // /docs "Try it out" is authorized with this test key (core/docs/docs.ts): same origin, the session's cookie,
  // never cached; a page of another origin cannot read it. An account without one gets one.
  router.get('/dashboard/docs-key', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const shown =
      (await openTestKey(db, services.secrets, accountId)) ??
      (await createKey(db, accountId, { name: 'test key (/docs)', mode: 'test' }, services.secrets))
    ctx.body = { key: shown.key }
  })

  // The request log.
  router.get('/dashboard/requests', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const data = await requestsPageData(db, services.requestLog, accountId, ctx)
    const keys = (await keyRows(accountId)).map((k) => ({ id: k.id, label: `${k.name ?? 'unnamed'} (${k.prefix}…)` }))
    const endpoints = [...services.capabilities.keys()].sort()
    page(ctx, requestsPage(await frame(ctx, 'requests'), { ...data, keys, endpoints }))
  })
  router.post('/dashboard/keys/:id/revoke', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await revokeKey(db, await ownKey(state(ctx).session.accountId, ctx.params.id), services.keys, services.now())
    ctx.redirect('/dashboard/keys?done=revoked')
  })
  router.post('/dashboard/keys/:id/cap', signedIn, async (ctx) => {
    const { monthlySpendCap } = read.form.keyCap(body(ctx))
    await updateKey(db, await ownKey(state(ctx).session.accountId, ctx.params.id), { monthlySpendCap: capOf(monthlySpendCap) })
    ctx.redirect('/dashboard/keys?done=cap')
  })

  // Webhooks.
  const webhooks = async (ctx: Context, shown?: { secret: string; rotated?: boolean }, done?: string) => {
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
      mode: 'live' | 'test'
    }>(
      `select d.id, d.job_id, j.endpoint, j.mode, d.event, d.url, d.status, d.attempts, d.updated_at,
              (select a.status_code from webhook_attempts a where a.delivery_id = d.id order by a.attempt desc limit 1) as last_code
         from webhook_deliveries d join jobs j on j.id = d.job_id
        where d.account_id = ? order by d.created_at desc limit 25`,
      [accountId],
    )
    const deliveries = rows.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      endpoint: r.endpoint,
      mode: r.mode,
      event: r.event,
      url: r.url,
      status: r.status,
      attempts: Number(r.attempts),
      lastStatusCode: r.last_code == null ? null : Number(r.last_code),
      updatedAt: new Date(r.updated_at).toISOString(),
    }))
    page(
      ctx,
      views.webhooksPage(await frame(ctx, 'webhooks', notice(done)), { hasSecret: account!.has_secret, deliveries, ...(shown ?? {}) }),
    )
  }
  router.get('/dashboard/webhooks', signedIn, (ctx) => {
    return webhooks(ctx, undefined, read.query.page(ctx.query).done)
  })
  router.post('/dashboard/webhooks/reveal', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const [row] = await db.sql<{ webhook_secret: string | null }>(`select webhook_secret from accounts where id = ?`, [
      state(ctx).session.accountId,
    ])
    if (!row?.webhook_secret) throw new ApiError('not_found', 'There is no signing secret yet.')
    await webhooks(ctx, { secret: services.secrets.open(row.webhook_secret) })
  })
  router.post('/dashboard/webhooks/rotate', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { secret } = await rotateWebhookSecret(db, state(ctx).session.accountId, services.secrets, services.now())
    await webhooks(ctx, { secret, rotated: true })
  })

  // Usage.
  // The filter form sends every field, empty when unused; the schema admits only real days and ids.
  const usageFilter = (ctx: Context): UsageFilter & { fromText?: string; toText?: string; cursor?: string } => {
    const q = read.query.usage(ctx.query)
    const f: UsageFilter & { fromText?: string; toText?: string; cursor?: string } = {}
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
  router.get('/dashboard/usage', signedIn, async (ctx) => {
    const { accountId } = state(ctx).session
    const { cursor, ...filter } = usageFilter(ctx)
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
    const { cursor: _cursor, ...filter } = usageFilter(ctx)
    ctx.body = await ledgerCsv(db, state(ctx).session.accountId, filter)
  })

  // Billing.
  router.get('/dashboard/billing', signedIn, async (ctx) => {
    const { checkout, done } = read.query.billing(ctx.query)
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
    page(
      ctx,
      views.billingPage(await frame(ctx, 'billing', notice(checkout ? `checkout-${checkout}` : done)), {
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
    // The schema's enums are the packs and plans: `toString` or `constructor` is no pack.
    const { pack, plan } = read.form.checkout(body(ctx))
    const item = pack ? { pack } : plan ? { plan } : null
    if (!item) throw new ApiError('invalid_request', 'Choose a pack or a plan.')
    ctx.status = 303
    ctx.redirect(await startCheckout(services, state(ctx).session.accountId, item, origin()))
  })
  router.post('/dashboard/billing/cancel', signedIn, async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await cancelPlan(services, state(ctx).session.accountId)
    ctx.redirect('/dashboard/billing?done=cancelled')
  })
  router.post('/dashboard/billing/auto-recharge', signedIn, async (ctx) => {
    const f = read.form.autoRecharge(body(ctx))
    if (f.off) await setAutoRecharge(services, state(ctx).session.accountId, null)
    else {
      const threshold = (f.threshold ?? '').trim()
      if (!/^\d{1,9}$/.test(threshold) || Number(threshold) < 1)
        throw new ApiError('invalid_request', 'The threshold is a whole number of credits, at least 1.')
      if (!f.pack) throw new ApiError('invalid_request', 'Choose the pack to buy.')
      await setAutoRecharge(services, state(ctx).session.accountId, { threshold: Number(threshold), pack: f.pack satisfies RechargePack })
    }
    ctx.redirect('/dashboard/billing?done=recharge')
  })
  return router
}
