// Hostile input on every surface is a 4xx, never a 5xx; every 405 says what the path allows (Allow), and no GET
// changes state. The routes are read from the routers the app mounts (test/helpers/routes.ts) and the field
// names from the input schemas the routes check, so a route or a field added later is walked without editing
// this file. Every request carries the credentials its area needs (API key, operator tokens, a dashboard
// session and its CSRF token), so it reaches the handler.
import { METHODS, request } from 'node:http'
import t from 'tap'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import { createMailer } from '../../core/mail.ts'
import { FORMS, QUERIES } from '../../core/dashboard/inputs.ts'
import { redeemSignInLink, sendSignInLink } from '../../core/dashboard/session.ts'
import { UsageQuery } from '../../core/usage/routes.ts'
import { startTestApp } from '../helpers/app.ts'
import { startFakeStripe } from '../../devkit/fake-stripe.ts'
import { mountedRoutes, type Route } from '../helpers/routes.ts'

t.setTimeout(600_000)
const ADMIN = 'admin-token-for-tests-0123456789abcdef'
const MAINTENANCE = 'maintenance-secret-for-tests-0123456789'
const METRICS = 'metrics-token-for-tests-0123456789abcdef'
const names = capabilityFolders(CAPABILITIES_ROOT)
const stripe = await startFakeStripe(t)
const app = await startTestApp(t, {
  config: {
    adminToken: ADMIN,
    maintenanceSecret: MAINTENANCE,
    metricsToken: METRICS,
    authFailuresPerMinute: 1e9,
    // Limits and pauses answer before the handler; lifted so that every request reaches it.
    rateLimits: Object.fromEntries([...names, 'dashboard-login-email', 'dashboard-login-ip', 'mcp'].map((n) => [n, 1e9])),
    paused: Object.fromEntries(names.map((n) => [n, false] as const)),
  },
  env: { STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url },
})
stripe.webhookUrl = `${app.url}/stripe/webhook`
app.services.config.dashboardUrl = app.url
const customer = await app.customer(1_000_000)

// A dashboard session of the customer's account, through the real sign-in link.
let link = ''
app.services.mailer = createMailer(
  undefined,
  'x@localhost',
  () => {},
  (text) => (link = /token=([\w-]{43})/.exec(text)![1]!),
)
const [{ email }] = (await app.services.db.sql(`select email from accounts where id = ?`, [customer.accountId])) as [{ email: string }]
await sendSignInLink(app.services, email, app.url)
const { sessionId } = (await redeemSignInLink(app.services, link, { requestId: 'req_fuzz', ip: '127.0.0.1' }))!
const [{ csrf_token: sessionCsrf }] = (await app.services.db.sql(`select csrf_token from dashboard_sessions`)) as [{ csrf_token: string }]
const preSessionCsrf = 'p'.repeat(43)

/** Every field name any route reads from a form or a query string, from the schemas themselves. */
const FIELDS = [
  ...new Set(
    [...Object.values(FORMS), ...Object.values(QUERIES), UsageQuery].flatMap((s) => Object.keys(s.properties)).filter((f) => f !== '_csrf'),
  ),
]
// Values of the wrong type as qs and querystring decode them: arrays, nested objects, NUL, prototype names,
// huge, and dates no calendar has (a leap second, 29 February of a common year, month 13).
const HOSTILE: Array<(field: string) => string> = [
  (f) => `${f}=1&${f}=2`,
  (f) => `${f}[]=x`,
  (f) => `${f}[a][b]=1`,
  (f) => `${f}=%00`,
  (f) => `${f}=a%00b%01`,
  (f) => `${f}=constructor`,
  (f) => `${f}=__proto__`,
  (f) => `${f}=toString`,
  (f) => `__proto__[${f}]=1`,
  (f) => `constructor[prototype][${f}]=1`,
  (f) => `${f}=${'x'.repeat(4000)}`,
  (f) => `${f}=2024-06-30T23:59:60Z`,
  (f) => `${f}=2023-02-29`,
  (f) => `${f}=2024-13-01T00:00:00Z`,
  (f) => `${f}=-1e309`,
]
const PARAMS = ['constructor', '__proto__', 'toString', '%00', 'x%5B%5D', customer.keyId]
const EVERY_METHOD = METHODS.filter((m) => m !== 'CONNECT') // CONNECT is a tunnel, not a request to a route

function credentials(path: string): Record<string, string> {
  if (path.startsWith('/admin')) return { authorization: `Bearer ${ADMIN}` }
  if (path.startsWith('/internal')) return { authorization: `Bearer ${MAINTENANCE}` }
  if (path.startsWith('/metrics')) return { authorization: `Bearer ${METRICS}` }
  if (path.startsWith('/dashboard')) return { cookie: `dash_session=${sessionId}; dash_csrf=${preSessionCsrf}` }
  return { authorization: `Bearer ${customer.key}` }
}
const csrfFor = (path: string) => (path.startsWith('/dashboard/login') ? preSessionCsrf : sessionCsrf)

function send(method: string, path: string, form?: string): Promise<{ status: number; text: string; allow?: string }> {
  const { hostname, port } = new URL(app.url)
  const headers: Record<string, string | number> = { ...credentials(path) }
  if (form !== undefined)
    Object.assign(headers, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) })
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      let text = ''
      res.on('data', (c) => (text += c))
      res.on('end', () =>
        resolve({ status: res.statusCode!, text, ...(res.headers.allow !== undefined ? { allow: res.headers.allow } : {}) }),
      )
    })
    req.on('error', reject)
    req.end(form)
  })
}

/** A route's path with each of the hostile parameter values (or itself when it has none). */
const variants = (route: Route) => (/:\w+/.test(route.path) ? PARAMS.map((p) => route.path.replace(/:\w+/g, p)) : [route.path])

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn))
}

const routes = mountedRoutes(app.services)

t.test('the route table is the app’s own: capabilities, kernel, docs, dashboard, Stripe, MCP and operator routes', async (t) => {
  for (const path of [
    '/v1/parse',
    '/v1/usage',
    '/docs/:asset',
    '/dashboard/billing/checkout',
    '/stripe/webhook',
    '/mcp',
    '/admin/accounts',
    '/internal/maintenance',
    '/metrics',
  ])
    t.ok(
      routes.some((r) => r.path === path),
      path,
    )
  t.ok(routes.length > names.length + 30, `${routes.length} routes`)
})

t.test('unknown methods: 405 method_not_allowed with the C2 body and Allow on every router, never a stack trace', async (t) => {
  for (const [method, path, allow] of [
    ['TRACE', '/healthz', 'HEAD, GET'],
    ['PROPFIND', '/v1/account', 'HEAD, GET'],
    ['DELETE', '/v1/classify', 'POST'],
    ['MKCOL', '/dashboard', 'HEAD, GET'],
    ['PURGE', '/docs', 'HEAD, GET'],
    ['SEARCH', '/admin/accounts', 'POST'],
    ['LINK', '/stripe/webhook', 'POST'],
  ] as const) {
    const res = await send(method, path)
    t.equal(res.status, 405, `${method} ${path}`)
    t.equal(JSON.parse(res.text).error.code, 'method_not_allowed', `${method} ${path}`)
    t.same(res.allow?.split(', ').sort(), allow.split(', ').sort(), `${method} ${path}: Allow: ${allow}`)
  }
  const options = await send('OPTIONS', '/v1/jobs')
  t.equal(options.status, 204, 'OPTIONS answers the methods')
  t.equal(options.allow, 'HEAD, GET')
  const nowhere = await send('TRACE', '/no/such/route')
  t.equal(nowhere.status, 404, 'a path no router knows is 404, whatever the method: a 405 always has a list')
  t.equal(JSON.parse(nowhere.text).error.code, 'not_found')
})

t.test('finding 2: /docs/<a prototype name> is 404, not an asset lookup on a plain object', async (t) => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    const res = await send('GET', `/docs/${name}`)
    t.equal(res.status, 404, name)
    t.equal(JSON.parse(res.text).error.code, 'not_found')
  }
  t.equal((await send('GET', '/docs/swagger-ui.css')).status, 200, 'the real assets are served')
})

t.test('finding 4: checkout with pack=toString or plan=constructor is 400 and opens no Stripe session', async (t) => {
  const before = stripe.sessions.size
  for (const form of ['pack=toString', 'plan=constructor', 'pack=__proto__', 'plan=none', 'pack=starter&pack=growth', 'pack[]=starter']) {
    const res = await send('POST', '/dashboard/billing/checkout', `_csrf=${sessionCsrf}&${form}`)
    t.equal(res.status, 400, form)
    t.match(res.text, /does not match its schema|Choose a pack or a plan/, form)
  }
  t.equal(stripe.sessions.size, before, 'no Checkout Session was created')
  const real = await send('POST', '/dashboard/billing/checkout', `_csrf=${sessionCsrf}&pack=starter`)
  t.equal(real.status, 303, 'a real pack still goes to Checkout')
  t.equal(stripe.sessions.size, before + 1)
})

t.test('finding 5: /v1/usage with a leap second, a day no calendar has or an array is 400 invalid_request', async (t) => {
  for (const query of [
    'from=2024-06-30T23:59:60Z',
    'to=2016-12-31T23:59:60Z',
    'from=2023-02-29T00:00:00Z',
    'from=2024-04-31T00:00:00Z',
    'from=2024-01-01T00:00:00Z&from=2024-01-02T00:00:00Z',
    'limit=%00',
    'endpoint[]=parse',
  ]) {
    const res = await app.call(`/v1/usage?${query}`, { key: customer.key })
    t.equal(res.status, 400, query)
    t.equal(res.body.error.code, 'invalid_request', query)
    t.ok(res.body.error.requestId, 'with the request id')
  }
  t.equal((await app.call('/v1/usage?from=2024-06-30T23:59:59Z', { key: customer.key })).status, 200, 'the second before is fine')
})

// The request log (request_log) is the record of the request itself, as an access log is: a GET leaves its row
// there by design (and its hourly rollups with it), and so does an operator's look in the audit log (action
// operator.viewed: who looked at what). A trigger on a partitioned table reaches its partitions.
// Everything else a GET reaches must be left as it was: a row trigger on every other table of the service and of
// the job queue notes each insert, update and delete.
t.test('no GET changes state: every GET route × its parameters and hostile queries writes no row', async (t) => {
  const db = app.services.db
  await db.sql(`create table fuzz_writes (tbl text not null, op text not null)`)
  await db.sql(`create function note_fuzz_write() returns trigger language plpgsql as $$
    begin
      if (tg_table_name = 'audit_entries' or starts_with(tg_table_name, 'audit_entries_')) and tg_op = 'INSERT' then
        if new.action = 'operator.viewed' then
          return null;
        end if;
      end if;
      insert into public.fuzz_writes values (tg_table_schema || '.' || tg_table_name, tg_op);
      return null;
    end $$`)
  await db.sql(`do $$
    declare r record;
    begin
      for r in select n.nspname as schemaname, c.relname as tablename from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where c.relkind in ('r', 'p') and not c.relispartition and n.nspname in ('public', 'graphile_worker')
                  and c.relname not in ('request_log', 'usage_rollups', 'usage_tag_rollups', 'fuzz_writes')
      loop
        execute format('create trigger fuzz_write after insert or update or delete on %I.%I for each row execute function note_fuzz_write()',
                       r.schemaname, r.tablename);
      end loop;
    end $$`)
  const gets = routes.filter((r) => r.method === 'GET')
  const writers: string[] = []
  let sent = 0
  for (const route of gets) {
    const paths = variants(route).flatMap((path) => [
      path,
      ...HOSTILE.slice(0, 4).map((h, i) => `${path}?${h(FIELDS[i % FIELDS.length]!)}`),
    ])
    for (const path of paths)
      for (const method of ['GET', 'HEAD']) {
        await send(method, path)
        sent++
      }
    await app.services.requestLog.flush()
    const wrote = await db.sql<{ tbl: string; op: string }>(`delete from fuzz_writes returning tbl, op`)
    if (wrote.length) writers.push(`GET ${route.path}: ${[...new Set(wrote.map((w) => `${w.op} ${w.tbl}`))].join(', ')}`)
  }
  t.same(writers, [], 'no GET wrote a row')
  t.comment(`${sent} GET and HEAD requests over ${gets.length} routes`)
  // The trigger is live: a write the service makes is seen.
  await db.sql(`update accounts set balance = balance where id = ?`, [customer.accountId])
  const [seen] = await db.sql<{ n: number }>(`select count(*)::int as n from fuzz_writes`)
  t.ok(seen!.n > 0, 'a write is noted')
})

t.test('each route (its own method) × each field × each wrong-typed value, in the query and as a form: no 5xx', async (t) => {
  const failures: string[] = []
  let sent = 0
  // The capability routes read JSON bodies, fuzzed by their own schema in fuzz.test.ts.
  const own = routes.filter((r) => !app.services.capabilities.has(r.path.slice('/v1/'.length)))
  const jobs = own.flatMap((route) =>
    variants(route)
      .slice(0, 2)
      .flatMap((path) => FIELDS.flatMap((field) => HOSTILE.map((hostile) => ({ route, path, fuzz: hostile(field) })))),
  )
  await inBatches(jobs, 16, async ({ route, path, fuzz }) => {
    const form = ['POST', 'PUT', 'PATCH'].includes(route.method) ? `_csrf=${csrfFor(path)}&${fuzz}` : undefined
    for (const res of [await send(route.method, `${path}?${fuzz}`), ...(form ? [await send(route.method, path, form)] : [])]) {
      sent++
      if (res.status >= 500 && failures.length < 30)
        failures.push(`${route.method} ${path} ${fuzz.slice(0, 80)} → ${res.status} ${res.text.slice(0, 100)}`)
    }
  })
  t.same(failures, [], 'no 5xx')
  t.comment(`${sent} requests over ${own.length} routes and ${FIELDS.length} fields`)
  const money = await app.ledger(customer.accountId)
  t.equal(money.balance, money.ledgerSum, 'balance == sum(ledger)')
  t.equal((await app.call('/healthz')).status, 200, 'healthy after')
})

// The walks last: with real credentials they may revoke the customer's key or end the session (DELETE
// /admin/keys/:id with its id, a logout whose only other field qs drops), which the tests above rely on.
t.test('every route × every method Node parses (TRACE, PROPFIND, MKCOL, PURGE, SEARCH, LINK …) × hostile query: no 5xx', async (t) => {
  const failures: string[] = []
  const statuses = new Map<number, number>()
  const jobs = routes.flatMap((route, r) =>
    variants(route).flatMap((path, v) =>
      EVERY_METHOD.map((method, m) => ({
        method,
        path: `${path}?${HOSTILE[(r + v + m) % HOSTILE.length]!(FIELDS[(r + m) % FIELDS.length]!)}`,
      })),
    ),
  )
  const unlisted: string[] = []
  await inBatches(jobs, 16, async ({ method, path }) => {
    const res = await send(method, path)
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
    if (res.status >= 500 && failures.length < 30)
      failures.push(`${method} ${path.slice(0, 120)} → ${res.status} ${res.text.slice(0, 100)}`)
    const allowed = res.allow?.split(', ') ?? []
    if (res.status === 405 && (!allowed.length || allowed.includes(method)) && unlisted.length < 30)
      unlisted.push(`${method} ${path.slice(0, 120)} → 405 with Allow: ${res.allow ?? '(none)'}`)
  })
  t.same(failures, [], 'no 5xx')
  t.same(unlisted, [], 'every 405 has an Allow header that lists other methods than the one refused')
  t.ok(statuses.get(405), 'the walk met 405s')
  t.comment(`${jobs.length} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
})
