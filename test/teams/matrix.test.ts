// The role × action matrix (C18), over every route the routers mount: each dashboard route against each member
// role, each management API route against each key permission. An allowed action succeeds and writes exactly one
// audit entry (the right actor, target and request id; a read writes none); a refused one is 403 and changes
// nothing. A role sees no form it may not send. Nothing of account A is visible or changeable from account B (404).
// The route list and each route's rule are read off the routers (each route's guard says what it guards); only
// the fixtures (a valid form or body per route) are written here, and a route without one fails the test.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ulid } from 'ulid'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { systemActing } from '../../core/audit/audit.ts'
import { batchIdOf } from '../../core/batches/view.ts'
import { emitEvent } from '../../core/events/emit.ts'
import { createEndpoint } from '../../core/events/endpoints.ts'
import { ROLES, roleMay, KEY_PERMISSIONS, keyMay, type KeyAccess, type Role, type RoleAction } from '../../core/roles.ts'
import { createMailer } from '../../core/mail.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { startFakeStripe } from '../../devkit/fake-stripe.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'
import { startTestProvider } from '../helpers/oidc-provider.ts'
import { mountedRouters } from '../helpers/routes.ts'
import { auditEntries, signedInMember } from '../helpers/teams.ts'

t.setTimeout(600_000)
const stripe = await startFakeStripe(t)
const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'classify', price: 2 })],
  config: { callbacksAllowPrivate: true, authFailuresPerMinute: 1e9 },
  env: { STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_URL: stripe.url },
})
stripe.webhookUrl = `${app.url}/stripe/webhook`
app.services.config.dashboardUrl = app.url
app.services.mailer = createMailer(
  undefined,
  'x@localhost',
  () => {},
  () => {},
)
const idp = await startTestProvider(t, [
  { client_id: 'matrix', client_secret: 'matrix-secret', redirect_uris: [`${app.url}/dashboard/sso/callback`] },
])
const { db } = app.services

interface GuardedRoute {
  method: string
  path: string
  rule: string | undefined
}

/** Every route with the rule its guard states (`action` of a dashboard guard, `access` of an API guard). */
function guardedRoutes(): GuardedRoute[] {
  const out: GuardedRoute[] = []
  const seen = new Set<string>()
  for (const router of mountedRouters(app.services))
    for (const layer of router.stack)
      for (const method of layer.methods) {
        if (method === 'HEAD' || seen.has(`${method} ${layer.path}`)) continue
        seen.add(`${method} ${layer.path}`)
        const guard = (layer.stack as Array<{ action?: string; access?: string }>).find((fn) => fn.action ?? fn.access)
        out.push({ method, path: String(layer.path), rule: guard?.action ?? guard?.access })
      }
  return out
}
const routes = guardedRoutes()
const dashboard = routes.filter((r) => r.path.startsWith('/dashboard') && r.rule !== 'public')
const api = routes.filter((r) => r.path.startsWith('/v1/') && (r.rule === 'read' || r.rule === 'manage'))

t.test('every dashboard and /v1 route states its rule', async (t) => {
  const unguarded = routes.filter(
    (r) => (r.path.startsWith('/dashboard') || (r.path.startsWith('/v1/') && r.path !== '/v1/openapi.json')) && !r.rule,
  )
  t.same(unguarded, [], 'no route without a guard')
  t.ok(dashboard.length >= 25, `${dashboard.length} signed-in dashboard routes`)
  t.ok(api.length >= 20, `${api.length} API routes`)
  t.ok(routes.some((r) => r.path === '/mcp' && r.rule === 'read'))
  t.ok(routes.some((r) => r.path === '/v1/classify' && r.rule === 'call'))
})

let n = 0
/** A fresh account with everything an action may act on. */
async function fixtureAccount() {
  const customer = await app.customer(1000, { plan: 'team' })
  const accountId = customer.accountId
  const testKey = await createKey(db, accountId, { name: 'sealed test', mode: 'test', permissions: 'call' }, app.services.secrets)
  const target = await createKey(db, accountId, { name: 'target', permissions: 'read' })
  await rotateWebhookSecret(db, accountId, app.services.secrets, new Date())
  const memberId = randomUUID()
  await db.sql(`insert into members (id, account_id, email, role) values (?, ?, ?, 'developer')`, [
    memberId,
    accountId,
    `target-${++n}@matrix.test`,
  ])
  const invitationId = randomUUID()
  await db.sql(
    `insert into invitations (id, account_id, email, role, token_hash, created_at, expires_at) values (?, ?, ?, 'viewer', ?, now(), now() + interval '7 days')`,
    [invitationId, accountId, `invited-${n}@matrix.test`, Buffer.from(randomUUID())],
  )
  await db.sql(
    `update accounts set stripe_customer_id = 'cus_x', stripe_payment_method = 'pm_x', stripe_subscription_id = ? where id = ?`,
    [`sub_${n}`, accountId],
  )
  await db.sql(
    `insert into sso_settings (account_id, issuer, client_id, client_secret, default_role, enforced, updated_at) values (?, ?, 'matrix', ?, 'viewer', false, now())`,
    [accountId, idp.issuer, app.services.secrets.seal('matrix-secret')],
  )
  await db.sql(`insert into sso_domains (domain, account_id) values (?, ?)`, [`old${n}.matrix.test`, accountId])
  // A row of the account's request log, for the routes that show one.
  const requestId = (await app.call('/v1/usage', { key: customer.key })).headers.get('x-request-id')!
  // A pending review of an extracted total (the routes that show or complete one), of an endpoint no longer served.
  const reviewId = `rev_${ulid()}`
  const result = { total: 10, grounding: { total: { evidence: null, grounded: false, confidence: 0.4 } } }
  await db.sql(
    `insert into reviews (id, account_id, livemode, endpoint, request_id, fields, request, result, pages, created_at) values (?, ?, true, 'retired', ?, '["/total"]', '{}', ?::jsonb, '["Total 12"]', now())`,
    [reviewId, accountId, requestId, JSON.stringify(result)],
  )
  // Its document, a one-page PDF kept sealed (the route that shows the page as an image).
  await db.sql(`insert into review_documents (review_id, pages, document) values (?, '{1}', ?)`, [
    reviewId,
    app.services.secrets.seal(Buffer.from(plainPdf('Total 12')).toString('base64')),
  ])
  // A batch whose one item failed (the routes that show one and stream its results).
  const batchRow = randomUUID()
  await db.sql(
    `insert into batches (id, account_id, key_id, mode, endpoint, batch_window, status, total, failed, quoted, released, request_id, created_at, expires_at, completed_at)
     values (?, ?, ?, 'live', 'classify', 'now', 'completed', 1, 1, 1, 1, ?, now(), now() + interval '1 day', now())`,
    [batchRow, accountId, target.id, requestId],
  )
  const endpoint = await createEndpoint(db, app.services.secrets, accountId, { url: 'http://127.0.0.1:9/hook' }, systemActing(new Date()))
  const eventId = await db.tx((q) =>
    emitEvent(q, { accountId, type: 'ping', livemode: true, data: { endpointId: endpoint.id, message: 'm' } }, new Date()),
  )
  return {
    ...customer,
    testKeyId: testKey.id,
    targetKeyId: target.id,
    memberId,
    invitationId,
    requestId,
    endpointId: endpoint.id,
    eventId,
    reviewId,
    batchId: batchIdOf(batchRow),
    n,
  }
}
type Fixture = Awaited<ReturnType<typeof fixtureAccount>>

/** The concrete path and form of a dashboard route on a fixture (a POST or a GET with a parameter missing here fails the test). */
const FORMS: Record<string, (f: Fixture, member: { email: string }) => Promise<{ path?: string; form?: Record<string, string> }>> = {
  'GET /dashboard/requests/:requestId': async (f) => ({ path: `/dashboard/requests/${f.requestId}` }),
  'POST /dashboard/logout': async () => ({ form: {} }),
  'POST /dashboard/switch': async (_f, member) => {
    const other = await app.customer(0)
    await db.sql(`insert into members (id, account_id, email, role) values (?, ?, ?, 'viewer')`, [
      randomUUID(),
      other.accountId,
      member.email,
    ])
    return { form: { accountId: other.accountId } }
  },
  'POST /dashboard/keys': async () => ({ form: { name: 'new', mode: 'live', permissions: 'read', capabilities: 'classify' } }),
  'POST /dashboard/keys/:id/reveal': async (f) => ({ path: `/dashboard/keys/${f.testKeyId}/reveal`, form: {} }),
  'POST /dashboard/keys/:id/revoke': async (f) => ({ path: `/dashboard/keys/${f.targetKeyId}/revoke`, form: {} }),
  'POST /dashboard/keys/:id/cap': async (f) => ({ path: `/dashboard/keys/${f.targetKeyId}/cap`, form: { monthlySpendCap: '500' } }),
  'POST /dashboard/keys/:id/scope': async (f) => ({
    path: `/dashboard/keys/${f.targetKeyId}/scope`,
    form: { permissions: 'call', capabilities: '' },
  }),
  'POST /dashboard/webhooks/reveal': async () => ({ form: {} }),
  'POST /dashboard/webhooks/rotate': async () => ({ form: {} }),
  'POST /dashboard/endpoints': async () => ({ form: { url: 'http://127.0.0.1:9/d', events: 'balance.*, job.failed' } }),
  'POST /dashboard/endpoints/:id/rotate': async (f) => ({ path: `/dashboard/endpoints/${f.endpointId}/rotate`, form: {} }),
  'POST /dashboard/endpoints/:id/test': async (f) => ({ path: `/dashboard/endpoints/${f.endpointId}/test`, form: {} }),
  'POST /dashboard/endpoints/:id/enabled': async (f) => ({ path: `/dashboard/endpoints/${f.endpointId}/enabled`, form: { enabled: '0' } }),
  'POST /dashboard/endpoints/:id/delete': async (f) => ({ path: `/dashboard/endpoints/${f.endpointId}/delete`, form: {} }),
  'GET /dashboard/events/:id': async (f) => ({ path: `/dashboard/events/${f.eventId}` }),
  'POST /dashboard/events/:id/resend': async (f) => ({ path: `/dashboard/events/${f.eventId}/resend`, form: {} }),
  'POST /dashboard/alerts': async () => ({ form: { balanceThresholds: '100, 10', keyBudgetPercents: '50', email: '1' } }),
  'POST /dashboard/billing/checkout': async () => ({ form: { pack: 'starter' } }),
  'POST /dashboard/billing/cancel': async () => ({ form: {} }),
  'POST /dashboard/billing/auto-recharge': async () => ({ form: { threshold: '100', pack: 'starter' } }),
  'POST /dashboard/team/invitations': async (f) => ({ form: { email: `new-${f.n}@matrix.test`, role: 'developer' } }),
  'POST /dashboard/team/invitations/:id/revoke': async (f) => ({ path: `/dashboard/team/invitations/${f.invitationId}/revoke`, form: {} }),
  'POST /dashboard/team/members/:id/role': async (f) => ({ path: `/dashboard/team/members/${f.memberId}/role`, form: { role: 'viewer' } }),
  'POST /dashboard/team/members/:id/remove': async (f) => ({ path: `/dashboard/team/members/${f.memberId}/remove`, form: {} }),
  'POST /dashboard/sso': async (f) => ({
    form: { issuer: idp.issuer, clientId: 'matrix', clientSecret: '', domains: `d${f.n}.matrix.test`, defaultRole: 'developer' },
  }),
  'POST /dashboard/sso/remove': async () => ({ form: {} }),
  'GET /dashboard/reviews/:id': async (f) => ({ path: `/dashboard/reviews/${f.reviewId}` }),
  'GET /dashboard/batches/:id/results': async (f) => ({ path: `/dashboard/batches/${f.batchId}/results` }),
  'POST /dashboard/reviews/settings': async () => ({ form: { mode: 'below', threshold: '0.8', endpoints: '' } }),
  'POST /dashboard/reviews/:id': async (f) => ({ path: `/dashboard/reviews/${f.reviewId}`, form: { f0: '12' } }),
  'GET /dashboard/reviews/:id/pages/:n.png': async (f) => ({ path: `/dashboard/reviews/${f.reviewId}/pages/1.png` }),
}

/** What an action could change, for "refused changes nothing". */
async function snapshot(accountId: string) {
  const [row] = await db.sql(
    `select row_to_json(a) as account,
       (select json_agg(json_build_object('id', id, 'revoked', revoked_at, 'cap', monthly_spend_cap, 'p', permissions, 'c', capabilities) order by id) from api_keys where account_id = a.id) as keys,
       (select json_agg(json_build_object('id', id, 'role', role, 'email', email) order by id) from members where account_id = a.id) as members,
       (select json_agg(json_build_object('id', id, 'revoked', revoked_at) order by id) from invitations where account_id = a.id) as invitations,
       (select row_to_json(s) from sso_settings s where s.account_id = a.id) as sso,
       (select count(*) from dashboard_sessions where account_id = a.id) as sessions,
       (select json_agg(json_build_object('id', id, 'url', url, 'enabled', enabled, 'events', events, 'secret', secret) order by id) from webhook_endpoints where account_id = a.id) as endpoints,
       (select count(*) from event_deliveries d join events e on e.id = d.event_id where e.account_id = a.id) as deliveries,
       (select count(*) from audit_entries where account_id = a.id) as audit
     from accounts a where a.id = ?`,
    [accountId],
  )
  return row
}

/** Each role × each signed-in dashboard route. */
t.test(
  'dashboard: each role × each route — allowed ones succeed with one audit entry, the others are 403 and change nothing',
  async (t) => {
    let cells = 0
    for (const route of dashboard) {
      const key = `${route.method} ${route.path}`
      if ((route.method !== 'GET' || route.path.includes(':')) && !FORMS[key]) {
        t.fail(`no fixture for ${key}: add one to FORMS`)
        continue
      }
      for (const role of ROLES) {
        cells++
        const f = await fixtureAccount()
        const member = await signedInMember(app, f.accountId, role)
        const { path = route.path, form } = (await FORMS[key]?.(f, member)) ?? {}
        const before = await snapshot(f.accountId)
        const res = route.method === 'GET' ? await member.get(path) : await member.post(path, form)
        // By request id, in any account: switching accounts is recorded in the account switched to.
        const added = await db.sql(`select * from audit_entries where request_id = ?`, [res.headers.get('x-request-id')])
        const memberIds = (await db.sql<{ id: string }>(`select id from members where email = ?`, [member.email])).map((m) => m.id)
        const allowed = roleMay(role, route.rule as RoleAction)
        const cell = `${role} ${key}`
        if (!allowed) {
          if (res.status !== 403) t.fail(`${cell}: ${res.status}, expected 403`)
          t.same(await snapshot(f.accountId), before, `${cell}: refused, nothing changed`)
          continue
        }
        if (res.status >= 400) {
          t.fail(
            `${cell}: ${res.status} ${res.text
              .replace(/<[^>]+>/g, ' ')
              .replace(/\s+/g, ' ')
              .slice(0, 200)}`,
          )
          continue
        }
        if (route.method === 'GET') {
          if (added.length) t.fail(`${cell}: a GET wrote ${added.length} audit entries`)
          continue
        }
        t.equal(added.length, 1, `${cell}: exactly one audit entry`)
        t.match(added[0], { actor_type: 'member', actor_email: member.email }, `${cell}: the member is the actor`)
        t.ok(memberIds.includes(added[0]?.actor_id as string), `${cell}: by their member id`)
        t.ok(added[0]?.target_type, `${cell}: a target (${added[0]?.action} → ${added[0]?.target_type})`)
      }
    }
    t.comment(`dashboard matrix: ${dashboard.length} routes × ${ROLES.length} roles = ${cells} cells`)
  },
)

t.test('a role sees no form it may not send, and no page it may not open in its navigation', async (t) => {
  const f = await fixtureAccount()
  const pages = dashboard.filter((r) => r.method === 'GET' && !r.path.includes('.csv') && r.path !== '/dashboard/docs-key')
  const posts = dashboard.filter((r) => r.method === 'POST')
  const ruleOf = (action: string) => posts.find((r) => new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`).test(action))?.rule
  for (const role of ROLES) {
    const member = await signedInMember(app, f.accountId, role)
    for (const p of pages) {
      if (!roleMay(role, p.rule as RoleAction)) continue
      const html = (await member.get(p.path)).text
      for (const [, action] of html.matchAll(/<form method="post" action="([^"]+)"/g)) {
        const rule = ruleOf(action!)
        if (!rule || !roleMay(role, rule as RoleAction)) t.fail(`${role} on ${p.path} sees a form to ${action} (${rule})`)
      }
      for (const [, href] of html.matchAll(/<nav>([\s\S]*?)<\/nav>/g)) {
        for (const [, link] of href!.matchAll(/href="([^"]+)"/g)) {
          const target = pages.find((x) => x.path === link)
          if (target && !roleMay(role, target.rule as RoleAction)) t.fail(`${role} sees ${link} in the navigation`)
        }
      }
    }
  }
  t.pass('checked every page of every role')
})

/** A body per management route (a route missing here fails the test). */
const BODIES: Record<string, (f: Fixture) => { path?: string; body?: unknown }> = {
  'POST /v1/keys': () => ({ body: { name: 'api', permissions: 'read' } }),
  'PATCH /v1/keys/:id': (f) => ({ path: `/v1/keys/${f.targetKeyId}`, body: { capabilities: ['classify'] } }),
  'DELETE /v1/keys/:id': (f) => ({ path: `/v1/keys/${f.targetKeyId}` }),
  'POST /v1/members': (f) => ({ body: { email: `added-${f.n}@matrix.test`, role: 'billing' } }),
  'PATCH /v1/members/:id': (f) => ({ path: `/v1/members/${f.memberId}`, body: { role: 'viewer' } }),
  'DELETE /v1/members/:id': (f) => ({ path: `/v1/members/${f.memberId}` }),
  'POST /v1/invitations': (f) => ({ body: { email: `inv-${f.n}@matrix.test`, role: 'viewer' } }),
  'DELETE /v1/invitations/:id': (f) => ({ path: `/v1/invitations/${f.invitationId}` }),
  'PUT /v1/sso': (f) => ({
    body: {
      issuer: idp.issuer,
      clientId: 'matrix',
      clientSecret: 'matrix-secret',
      domains: [`api${f.n}.matrix.test`],
      defaultRole: 'viewer',
      enforced: false,
    },
  }),
  'DELETE /v1/sso': () => ({}),
  'DELETE /v1/cache': () => ({}),
  'GET /v1/jobs/:id': () => ({ path: `/v1/jobs/${randomUUID()}` }),
  'GET /v1/jobs/:id/deliveries': () => ({ path: `/v1/jobs/${randomUUID()}/deliveries` }),
  'GET /v1/requests/:requestId': (f) => ({ path: `/v1/requests/${f.requestId}` }),
  'GET /v1/batches/:id': (f) => ({ path: `/v1/batches/${f.batchId}` }),
  'GET /v1/batches/:id/results': (f) => ({ path: `/v1/batches/${f.batchId}/results` }),
  'POST /v1/webhook-endpoints': () => ({ body: { url: 'http://127.0.0.1:9/new', events: ['balance.*'] } }),
  'GET /v1/webhook-endpoints/:id': (f) => ({ path: `/v1/webhook-endpoints/${f.endpointId}` }),
  'PATCH /v1/webhook-endpoints/:id': (f) => ({ path: `/v1/webhook-endpoints/${f.endpointId}`, body: { enabled: false } }),
  'DELETE /v1/webhook-endpoints/:id': (f) => ({ path: `/v1/webhook-endpoints/${f.endpointId}` }),
  'POST /v1/webhook-endpoints/:id/rotate-secret': (f) => ({ path: `/v1/webhook-endpoints/${f.endpointId}/rotate-secret` }),
  'POST /v1/webhook-endpoints/:id/test': (f) => ({ path: `/v1/webhook-endpoints/${f.endpointId}/test` }),
  'GET /v1/events/:id': (f) => ({ path: `/v1/events/${f.eventId}` }),
  'POST /v1/events/:id/resend': (f) => ({ path: `/v1/events/${f.eventId}/resend`, body: {} }),
  'PUT /v1/alerts': () => ({ body: { balanceThresholds: [100], keyBudgetPercents: [80] } }),
  'PUT /v1/review-settings': () => ({ body: { mode: 'ungrounded' } }),
  'GET /v1/reviews/:id': (f) => ({ path: `/v1/reviews/${f.reviewId}` }),
  'POST /v1/reviews/:id/complete': (f) => ({
    path: `/v1/reviews/${f.reviewId}/complete`,
    body: { fields: [{ path: '/total', action: 'correct', value: 12 }] },
  }),
  'GET /v1/usage/summary': () => ({ path: '/v1/usage/summary?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&groupBy=endpoint' }),
  'GET /v1/usage/export': () => ({ path: '/v1/usage/export?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&format=csv' }),
}

/** The success status the published document gives the route (201 for a creation, 202 for work queued, 204 for a deletion). */
function publishedSuccess(method: string, path: string): number {
  const operation = app.contract.doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]
  return Number(Object.keys(operation?.responses ?? {}).find((s) => /^2\d\d$/.test(s)) ?? 200)
}

t.test('API: each key permission × each route — allowed ones succeed with one audit entry per change, the others are 403', async (t) => {
  let cells = 0
  for (const route of api) {
    const key = `${route.method} ${route.path}`
    if (route.path.includes(':') && !BODIES[key]) {
      t.fail(`no fixture for ${key}: add one to BODIES`)
      continue
    }
    if (route.method !== 'GET' && !BODIES[key]) {
      t.fail(`no fixture for ${key}: add one to BODIES`)
      continue
    }
    for (const permission of KEY_PERMISSIONS) {
      cells++
      const f = await fixtureAccount()
      const caller = await createKey(db, f.accountId, { name: permission, permissions: permission })
      const { path = route.path, body } = BODIES[key]?.(f) ?? {}
      const before = await snapshot(f.accountId)
      const lastAudit = (await auditEntries(app, f.accountId)).at(-1)!.id
      const res = await app.call(path, { key: caller.key, method: route.method, ...(body !== undefined ? { body } : {}) })
      const added = (await auditEntries(app, f.accountId)).filter((e) => BigInt(e.id) > BigInt(lastAudit))
      const cell = `${permission} ${key}`
      if (!keyMay(permission, route.rule as KeyAccess)) {
        t.equal(res.status, 403, `${cell}: 403`)
        t.equal(res.body?.error?.code, 'permission_denied', `${cell}: permission_denied`)
        t.same(await snapshot(f.accountId), before, `${cell}: nothing changed`)
        continue
      }
      // A job that does not exist: the allowed reads of one answer 404.
      const expected = key.startsWith('GET /v1/jobs/:id') ? 404 : publishedSuccess(route.method, route.path)
      t.equal(res.status, expected, `${cell}: ${res.status} ${res.text.slice(0, 160)}`)
      if (route.method === 'GET') {
        t.equal(added.length, 0, `${cell}: a read writes no audit entry`)
        continue
      }
      t.equal(added.length, 1, `${cell}: exactly one audit entry`)
      t.match(
        added[0],
        { actor_type: 'key', actor_id: caller.id, actor_key_prefix: caller.prefix, request_id: res.headers.get('x-request-id') },
        `${cell}: the key is the actor, with the request id`,
      )
    }
  }
  // Capability calls: only call and all keys.
  for (const permission of KEY_PERMISSIONS) {
    cells++
    const f = await fixtureAccount()
    const caller = await createKey(db, f.accountId, { permissions: permission })
    const res = await app.call('/v1/classify', { key: caller.key, body: { text: 'x' } })
    t.equal(res.status, keyMay(permission, 'call') ? 200 : 403, `${permission} POST /v1/classify`)
  }
  t.comment(`API matrix: ${api.length} routes × ${KEY_PERMISSIONS.length} permissions + 1 capability × 3 = ${cells} cells`)
})

t.test('cross-account: nothing of account A is visible or changeable with B’s members or keys (404)', async (t) => {
  const a = await fixtureAccount()
  const b = await fixtureAccount()
  const before = await snapshot(a.accountId)
  const owner = await signedInMember(app, b.accountId, 'owner')
  for (const [path, form] of [
    [`/dashboard/keys/${a.targetKeyId}/revoke`, {}],
    [`/dashboard/keys/${a.testKeyId}/reveal`, {}],
    [`/dashboard/keys/${a.targetKeyId}/scope`, { permissions: 'read' }],
    [`/dashboard/team/members/${a.memberId}/role`, { role: 'viewer' }],
    [`/dashboard/team/members/${a.memberId}/remove`, {}],
    [`/dashboard/team/invitations/${a.invitationId}/revoke`, {}],
    ['/dashboard/switch', { accountId: a.accountId }],
  ] as const) {
    t.equal((await owner.post(path, form)).status, 404, `dashboard ${path}`)
  }
  for (const page of ['/dashboard/keys', '/dashboard/team', '/dashboard/audit', '/dashboard/sso']) {
    const html = (await owner.get(page)).text
    for (const id of [a.targetKeyId, a.memberId, a.invitationId, a.accountId]) t.notOk(html.includes(id), `${page} shows nothing of A`)
  }
  const bKey = await createKey(db, b.accountId, { permissions: 'all' })
  for (const [method, path, body] of [
    ['PATCH', `/v1/keys/${a.targetKeyId}`, { name: 'x' }],
    ['DELETE', `/v1/keys/${a.targetKeyId}`, undefined],
    ['PATCH', `/v1/members/${a.memberId}`, { role: 'viewer' }],
    ['DELETE', `/v1/members/${a.memberId}`, undefined],
    ['DELETE', `/v1/invitations/${a.invitationId}`, undefined],
    ['GET', `/v1/webhook-endpoints/${a.endpointId}`, undefined],
    ['PATCH', `/v1/webhook-endpoints/${a.endpointId}`, { enabled: false }],
    ['DELETE', `/v1/webhook-endpoints/${a.endpointId}`, undefined],
    ['POST', `/v1/webhook-endpoints/${a.endpointId}/rotate-secret`, undefined],
    ['POST', `/v1/webhook-endpoints/${a.endpointId}/test`, undefined],
    ['GET', `/v1/events/${a.eventId}`, undefined],
    ['POST', `/v1/events/${a.eventId}/resend`, {}],
  ] as const) {
    const res = await app.call(path, { key: bKey.key, method, ...(body ? { body } : {}) })
    t.equal(res.status, 404, `API ${method} ${path}`)
  }
  for (const path of ['/v1/keys', '/v1/members', '/v1/invitations', '/v1/audit-log', '/v1/sso', '/v1/webhook-endpoints', '/v1/events']) {
    const text = (await app.call(path, { key: bKey.key })).text
    for (const id of [a.targetKeyId, a.memberId, a.invitationId, a.accountId, a.endpointId, a.eventId])
      t.notOk(text.includes(id), `${path} shows nothing of A`)
  }
  t.same(await snapshot(a.accountId), before, 'A is unchanged')
})

t.test('the last owner is protected; only an owner changes owners; an admin’s key scope never exceeds its role', async (t) => {
  const f = await fixtureAccount()
  const [{ id: ownerId }] = (await db.sql(`select id from members where account_id = ? and role = 'owner'`, [f.accountId])) as [
    { id: string },
  ]
  const owner = await signedInMember(
    app,
    f.accountId,
    'owner',
    (await db.sql(`select email from members where id = ?`, [ownerId]))[0]!.email,
  )
  t.equal((await owner.post(`/dashboard/team/members/${ownerId}/role`, { role: 'admin' })).status, 400, 'the last owner cannot step down')
  t.equal((await owner.post(`/dashboard/team/members/${ownerId}/remove`, {})).status, 400, 'nor leave')
  const admin = await signedInMember(app, f.accountId, 'admin')
  t.equal((await admin.post(`/dashboard/team/members/${ownerId}/role`, { role: 'viewer' })).status, 403, 'an admin cannot demote an owner')
  t.equal((await admin.post(`/dashboard/team/members/${f.memberId}/role`, { role: 'owner' })).status, 403, 'nor make one')
  const allKey = await createKey(db, f.accountId, { permissions: 'all' })
  const viaKey = await app.call(`/v1/members/${ownerId}`, { key: allKey.key, method: 'PATCH', body: { role: 'viewer' } })
  t.equal(viaKey.status, 403, 'an all key acts as an admin: no owner changes')
  t.equal((await owner.post(`/dashboard/team/members/${f.memberId}/role`, { role: 'owner' })).status, 302, 'an owner makes another owner')
  t.equal((await owner.post(`/dashboard/team/members/${ownerId}/role`, { role: 'admin' })).status, 302, 'and may then step down')
  const developer = await signedInMember(app, f.accountId, 'developer')
  const allByDeveloper = await developer.post('/dashboard/keys', { name: 'escalate', mode: 'live', permissions: 'all' })
  t.equal(allByDeveloper.status, 403, 'a developer cannot make a key that manages members')
  const roles: Role[] = (await db.sql(`select role from members where account_id = ?`, [f.accountId])).map((r) => r.role as Role)
  t.ok(roles.includes('owner'), 'an owner remains')
})
