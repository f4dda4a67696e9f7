// Issue 12: authorization cannot depend on how a path is spelled (C13, C9), malformed input is a 4xx (C2),
// failed authentication is throttled, and the boundaries of secrets and logs. The route table is read from
// the routers the app mounts, so routes added later are covered without editing this file.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import net from 'node:net'
import t from 'tap'
import { parse } from 'yaml'
import { buildApp, httpServer } from '../../core/app.ts'
import { rotateWebhookSecret } from '../../core/accounts/accounts.ts'
import { boot } from '../../core/boot.ts'
import { BootRefusal, checkOperatorSecrets, loadConfig } from '../../core/config.ts'
import { ApiError } from '../../core/errors.ts'
import { runModel } from '../../core/models/generate.ts'
import { safeError } from '../../core/observability/log.ts'
import { MAX_JSON_DEPTH, tooDeep } from '../../core/http/body.ts'
import { canonicalPath } from '../../core/http/routing.ts'
import { loadSecretKeys, secretBox, SecretUnreadable } from '../../core/secrets.ts'
import type { Services } from '../../core/services.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { mountedRouters, mountedRoutes, type Route } from '../helpers/routes.ts'

const ADMIN = 'admin-token-for-tests-0123456789abcdef'
const MAINTENANCE = 'maintenance-secret-for-tests-0123456789'
const resolver = async (host: string) => {
  if (host === 'internal.example') return [{ address: '10.0.0.7', family: 4 as const }]
  if (host === 'nowhere.example') return []
  return [{ address: '93.184.216.34', family: 4 as const }]
}

const app = await startTestApp(t, {
  config: { adminToken: ADMIN, maintenanceSecret: MAINTENANCE, authFailuresPerMinute: 1_000_000 },
  resolver,
})
const customer = await app.customer(1000)

/** A raw request: the path goes on the wire exactly as written (fetch would normalise it). */
function raw(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const { hostname, port } = new URL(baseUrl)
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Other spellings of a path: each must never reach a handler without the right credentials. */
function spellings(path: string): string[] {
  const [, first = '', ...rest] = path.split('/')
  const tail = rest.length ? `/${rest.join('/')}` : ''
  const mixed = [...first].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch.toUpperCase())).join('')
  const encodedFirst = first ? `%${first.charCodeAt(0).toString(16).toUpperCase()}${first.slice(1)}` : ''
  const all = [
    path.toUpperCase(),
    `/${first.toUpperCase()}${tail}`,
    `/${mixed}${tail}`,
    `${path}/`,
    `/${path}`,
    path.replace(/\//g, '//'),
    `/${encodedFirst}${tail}`,
    ...(rest.length ? [`/${first}%2F${rest.join('/')}`, `/${first}%2f${rest.join('%2F')}`] : []),
  ]
  return [...new Set(all)].filter((p) => p !== path)
}

/** Real ids in place of parameters, so that a bypass would act on real rows. */
function concrete(path: string, ids: { account: string; key: string }): string {
  return path
    .replace(/\/(accounts|keys|jobs)\/:[a-zA-Z]+/g, (_, kind: string) => `/${kind}/${kind === 'keys' ? ids.key : ids.account}`)
    .replace(/:[a-zA-Z]+/g, ids.account)
}

/** A body the handler would accept, so that a bypass would change state rather than fail validation. */
function bodyFor(route: Route, services: Services): string | undefined {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined
  const cap = route.path.startsWith('/v1/') ? services.capabilities.get(route.path.slice(4)) : undefined
  if (cap) return JSON.stringify(cap.example?.request ?? {})
  const last = route.path.split('/').at(-1)
  const bodies: Record<string, unknown> = {
    accounts: { email: 'bypass@example.test' },
    credits: { credits: 1000, reason: 'bypass' },
    plan: { plan: 'team' },
    keys: { name: 'bypass' },
    ':id': { monthlySpendCap: null },
  }
  return JSON.stringify(bodies[last ?? ''] ?? {})
}

async function stateOf(app: TestApp): Promise<unknown> {
  const [row] = await app.services.db.sql(`select
      (select json_agg(json_build_object('id', id, 'balance', balance, 'reserved', reserved, 'plan', plan, 'secret', webhook_secret) order by id) from accounts) as accounts,
      (select json_agg(json_build_object('id', id, 'revoked', revoked_at, 'cap', monthly_spend_cap) order by id) from api_keys) as keys,
      (select count(*) from ledger) as ledger, (select count(*) from jobs) as jobs, (select count(*) from idempotency_records) as idem`)
  return row
}

const PROTECTED = /^\/(admin|internal|v1)(\/|$)/
// Routes that answer without credentials by design; everything else under /admin, /internal and /v1 needs them.
const PUBLIC = new Set(['GET /v1/openapi.json'])

t.test('every mounted router is case-sensitive and strict, so a route answers to one spelling', async (t) => {
  const routers = mountedRouters(app.services)
  t.ok(routers.length >= 2, 'the app mounts its routers')
  for (const r of routers) t.match(r.opts, { sensitive: true, strict: true }, `router ${r.opts.prefix ?? '/'}`)
})

t.test('every route × every spelling × {no token, wrong token, API key} never answers 2xx and changes nothing (C13, C9)', async (t) => {
  const routes = mountedRoutes(app.services)
  t.ok(
    routes.some((r) => r.path === '/admin/accounts/:id/keys'),
    'the table includes the operator routes',
  )
  t.ok(
    routes.some((r) => r.path === '/internal/maintenance'),
    'and maintenance',
  )
  t.ok(routes.filter((r) => r.path.startsWith('/v1/')).length >= app.services.capabilities.size, 'and every /v1 route')
  const ids = { account: customer.accountId, key: customer.keyId }
  const before = await stateOf(app)
  const credentials: Record<string, Record<string, string>> = {
    'no token': {},
    'wrong token': { authorization: 'Bearer wrong-token' },
    'an API key as operator token': { authorization: `Bearer ${customer.key}` },
  }
  let checked = 0
  for (const route of routes) {
    const path = concrete(route.path, ids)
    const body = bodyFor(route, app.services)
    const isProtected = PROTECTED.test(route.path) && !PUBLIC.has(`${route.method} ${route.path}`)
    const isOperator = /^\/(admin|internal)(\/|$)/.test(route.path)
    for (const [what, headers] of Object.entries(credentials)) {
      // An API key is the right credential on /v1, so it is only a wrong one on the operator routes.
      if (what === 'an API key as operator token' && !isOperator) continue
      for (const spelled of [...(isProtected ? [path] : []), ...spellings(path)]) {
        const res = await raw(app.url, route.method, spelled, headers, body)
        checked++
        if (![401, 404, 405].includes(res.status))
          t.fail(`${route.method} ${spelled} with ${what}: ${res.status} ${res.text.slice(0, 120)}`)
      }
    }
    // The right operator token on another spelling reaches no handler either.
    if (isOperator) {
      const auth = { authorization: `Bearer ${route.path.startsWith('/admin') ? ADMIN : MAINTENANCE}` }
      for (const spelled of spellings(path)) {
        const res = await raw(app.url, route.method, spelled, auth, body)
        checked++
        if (![404, 405].includes(res.status)) t.fail(`${route.method} ${spelled} with the right token: ${res.status}`)
      }
    }
  }
  t.ok(checked > 500, `${checked} requests, none answered 2xx`)
  t.same(await stateOf(app), before, 'no balance, key, plan, secret, ledger row or job changed')
})

t.test('with ADMIN_TOKEN and MAINTENANCE_SECRET unset, every operator route is 404 in every spelling', async (t) => {
  const services = { ...app.services, config: { ...app.services.config, adminToken: undefined, maintenanceSecret: undefined } }
  const server = httpServer(buildApp(services), services.config).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  const before = await stateOf(app)
  const ids = { account: customer.accountId, key: customer.keyId }
  const operator = mountedRoutes(services).filter((r) => /^\/(admin|internal)(\/|$)/.test(r.path))
  t.ok(operator.length >= 10)
  for (const route of operator) {
    const path = concrete(route.path, ids)
    for (const spelled of [path, ...spellings(path)]) {
      for (const auth of [undefined, 'Bearer anything', `Bearer ${ADMIN}`]) {
        const res = await raw(url, route.method, spelled, auth ? { authorization: auth } : {}, bodyFor(route, services))
        if (![404, 405].includes(res.status)) t.fail(`${route.method} ${spelled}: ${res.status}`)
      }
    }
  }
  t.same(await stateOf(app), before, 'nothing changed')
})

t.test('canonicalPath removes every spelling difference', async (t) => {
  for (const p of [
    '/ADMIN/accounts',
    '//admin//accounts/',
    '/%61dmin/accounts',
    '/admin%2Faccounts',
    '/%2561dmin/accounts',
    '/Admin\\accounts',
  ]) {
    t.equal(canonicalPath(p), '/admin/accounts', p)
  }
})

t.test('the bearer scheme is case-insensitive (RFC 9110), for API keys and the operator token', async (t) => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
    t.equal((await app.call('/v1/account', { headers: { authorization: `${scheme} ${customer.key}` } })).status, 200, scheme)
    t.equal(
      (await app.call(`/admin/accounts/${customer.accountId}`, { headers: { authorization: `${scheme} ${ADMIN}` } })).status,
      200,
      scheme,
    )
  }
  t.equal((await app.call('/v1/account', { headers: { authorization: `Basic ${customer.key}` } })).status, 401, 'another scheme is refused')
})

t.test('failed authentication is throttled per client (429 + Retry-After) and unknown keys are not looked up twice', async (t) => {
  const small = await startTestApp(t, { capabilities: [], config: { authFailuresPerMinute: 5 } })
  const good = await small.customer(10)
  const trips = () => small.services.db.roundTrips()
  let before = trips()
  t.equal((await small.call('/v1/account', { key: 'ksk_live_unknown0' })).status, 401)
  t.equal(trips() - before, 1, 'one lookup for an unknown key')
  before = trips()
  t.equal((await small.call('/v1/account', { key: 'ksk_live_unknown0' })).status, 401)
  t.equal(trips() - before, 0, 'the same unknown key again: no lookup (negative cache)')
  for (let i = 1; i < 4; i++) t.equal((await small.call('/v1/account', { key: `ksk_live_unknown${i}` })).status, 401)
  before = trips()
  const refused = await small.call('/v1/account', { key: 'ksk_live_unknown9' })
  t.equal(refused.status, 429)
  t.equal(refused.body.error.code, 'rate_limited')
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  t.equal(trips() - before, 0, 'a throttled client costs no lookup')
  const first = await small.call('/v1/account', { key: good.key })
  t.equal(first.status, 429, 'a throttled client is refused even with a valid key it has not used before')
  t.equal((await small.call('/v1/account', { headers: {} })).status, 401, 'a missing key is not a guess and is not counted')
})

t.test(
  'failed operator tokens count with failed keys, per client: 429 + Retry-After past the limit, the right token included',
  async (t) => {
    const METRICS = 'metrics-token-for-tests-0123456789abcdef'
    const small = await startTestApp(t, {
      capabilities: [],
      config: { adminToken: ADMIN, maintenanceSecret: MAINTENANCE, metricsToken: METRICS, authFailuresPerMinute: 5 },
    })
    const wrong = { authorization: 'Bearer wrong-token-0123456789abcdef0123456789' }
    const statuses: number[] = []
    for (const [path, method] of [
      ['/admin/costs', 'GET'],
      ['/metrics', 'GET'],
      ['/internal/maintenance', 'POST'],
      ['/admin/accounts', 'GET'],
      ['/metrics', 'GET'],
      ['/admin/costs', 'GET'],
      ['/internal/maintenance', 'POST'],
    ] as const) {
      statuses.push((await small.call(path, { method, headers: wrong })).status)
    }
    t.same(statuses, [401, 401, 401, 401, 401, 429, 429], 'five failures across the three areas, then 429')
    const refused = await small.call('/admin/costs', { headers: { authorization: `Bearer ${ADMIN}` } })
    t.equal(refused.status, 429, 'the right token too: a throttled guesser learns nothing')
    t.equal(refused.body.error.code, 'rate_limited')
    t.match(refused.headers.get('retry-after'), /^\d+$/)
    t.equal((await small.call('/v1/account', { key: 'ksk_live_unknown0' })).status, 429, 'and its API keys: one count per client')

    // Another client address (127.0.0.2 is this host too) is not throttled by the first one's failures.
    const fromOther = async (token: string) =>
      new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(small.url)
        request(
          { hostname, port, path: '/admin/costs', localAddress: '127.0.0.2', headers: { authorization: `Bearer ${token}` } },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          },
        )
          .on('error', reject)
          .end()
      })
    t.equal(await fromOther(ADMIN), 200, 'another client with the right token')
    t.equal(await fromOther('wrong-token-0123456789abcdef0123456789'), 401, 'another client with a wrong one: its own count')
  },
)

t.test('the service refuses to start with a guessable operator secret, naming the fix', async (t) => {
  for (const [name, value, why] of [
    ['ADMIN_TOKEN', 'CHANGE-ME', /ADMIN_TOKEN is 9 characters long; at least 32 are needed/],
    ['ADMIN_TOKEN', 'admin-secret', /at least 32/],
    ['MAINTENANCE_SECRET', 'changeme-changeme-changeme-changeme', /MAINTENANCE_SECRET is an example value/],
    ['METRICS_TOKEN', 'Replace_Me: a long random token from openssl', /METRICS_TOKEN is an example value/],
    ['ADMIN_TOKEN', 'aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbb', /fewer than 8 distinct characters/],
  ] as const) {
    const refusal = await boot(loadConfig({ [name]: value })).catch((e: unknown) => e)
    t.ok(refusal instanceof BootRefusal, `${name}=${value}: a boot refusal`)
    t.match((refusal as Error).message, why, name)
    t.match((refusal as Error).message, /openssl rand -hex 32/, 'names the fix')
  }
  t.doesNotThrow(() => checkOperatorSecrets(loadConfig({ ADMIN_TOKEN: randomBytes(32).toString('hex') })), 'openssl rand -hex 32')
  t.doesNotThrow(() => checkOperatorSecrets(loadConfig({})), 'unset: the routes are 404')
})

t.test('the deploy examples ship no operator secret (empty: unset), and say how to make one', async (t) => {
  const root = new URL('../../', import.meta.url)
  const secret = parse(readFileSync(new URL('deploy/kubernetes/secret.example.yaml', root), 'utf8')) as {
    stringData: Record<string, string>
  }
  const env = Object.fromEntries(
    readFileSync(new URL('.env.example', root), 'utf8')
      .split('\n')
      .map((line) => /^#?\s*([A-Z_]+)=(.*)$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  )
  for (const [where, values] of [
    ['secret.example.yaml', secret.stringData],
    ['.env.example', env],
  ] as const) {
    for (const name of ['ADMIN_TOKEN', 'MAINTENANCE_SECRET', 'METRICS_TOKEN']) {
      if (name in values) t.equal(values[name], '', `${where}: ${name} is empty`)
    }
  }
  t.match(readFileSync(new URL('deploy/kubernetes/secret.example.yaml', root), 'utf8'), /openssl rand -hex 32/)
})

t.test('JSON nested deeper than the limit is 400 invalid_request naming the path, live and in dry runs (stage 4)', async (t) => {
  const deep = (n: number): unknown => {
    let v: unknown = 'x'
    for (let i = 0; i < n; i++) v = { a: v }
    return v
  }
  // Written as text: JSON.stringify itself cannot nest 5,000 deep.
  const deepText = (n: number) => `${'{"a":'.repeat(n)}"x"${'}'.repeat(n)}`
  const balance = (await app.ledger(customer.accountId)).balance
  for (const [endpoint, body] of [
    ['/v1/fraud-flag', `{"order":${deepText(5000)}}`],
    ['/v1/structure', `{"input":"x","schema":${deepText(5000)}}`],
  ] as const) {
    for (const dry of [false, true]) {
      const res = await app.call(endpoint, { raw: body, key: customer.key, headers: dry ? { 'service-dry-run': '1' } : {} })
      const error = res.body.error
      t.equal(res.status, dry ? 200 : 400, `${endpoint} dry=${dry}`)
      if (dry) t.equal(res.body.liveStatus, 400)
      t.equal(error.code, 'invalid_request')
      t.match(error.details[0].path, new RegExp(`^/${endpoint === '/v1/fraud-flag' ? 'order' : 'schema'}(/a)+$`))
    }
  }
  t.equal((await app.ledger(customer.accountId)).balance, balance, 'nothing charged')
  t.equal(tooDeep(deep(MAX_JSON_DEPTH)), null, `${MAX_JSON_DEPTH} levels pass`)
  t.equal(tooDeep(deep(MAX_JSON_DEPTH + 1)), `/${Array(MAX_JSON_DEPTH).fill('a').join('/')}`, 'one more is refused, by its path')
  t.equal(tooDeep([[[1]]], 2), '/0/0')
})

t.test('a malformed or unknown id is 404 not_found everywhere, never a 500', async (t) => {
  const auth = { authorization: `Bearer ${ADMIN}` }
  const unknown = '00000000-0000-4000-8000-000000000000'
  for (const id of ['not-a-uuid', '1', "'; select 1 --", unknown]) {
    const e = encodeURIComponent(id)
    for (const [method, path, body] of [
      ['PATCH', `/admin/keys/${e}`, { monthlySpendCap: null }],
      ['DELETE', `/admin/keys/${e}`, undefined],
      ['GET', `/admin/accounts/${e}`, undefined],
      ['POST', `/admin/accounts/${e}/credits`, { credits: 5, reason: 'x' }],
      ['POST', `/admin/accounts/${e}/plan`, { plan: 'team' }],
      ['POST', `/admin/accounts/${e}/keys`, { name: 'x' }],
      ['POST', `/admin/accounts/${e}/webhook-secret`, undefined],
      ['GET', `/admin/jobs/${e}/deliveries`, undefined],
    ] as const) {
      const res = await app.call(path, { method, headers: auth, ...(body ? { body } : {}) })
      t.equal(res.status, 404, `${method} ${path}`)
      t.equal(res.body?.error?.code, 'not_found', `${method} ${path}`)
    }
    const job = await app.call(`/v1/jobs/${e}`, { key: customer.key })
    t.equal(job.status, 404, `/v1/jobs/${id}`)
  }
})

t.test('callbackUrl refusals do not tell an unresolvable name from a private one (C8)', async (t) => {
  const parse = app.services.capabilities.get('parse')!
  const answers = []
  for (const host of ['internal.example', 'nowhere.example']) {
    const body = { ...(parse.example?.request as object), async: true, callbackUrl: `https://${host}/hook` }
    const res = await app.call('/v1/parse', { body, key: customer.key })
    t.equal(res.status, 400)
    t.equal(res.body.error.code, 'invalid_callback_url')
    answers.push(JSON.stringify([res.body.error.message, res.body.error.details]))
  }
  t.equal(answers[0]!.replace('internal', 'X'), answers[1]!.replace('nowhere', 'X'), 'one message for both')
  t.notMatch(answers[1]!, /resolve/)
})

t.test('an internal error is logged by class, code, stack frames and request id, never its message (SQL values)', async (t) => {
  const e = Object.assign(
    new Error(`select * from api_keys where key_hash = '\\xdeadbeef' - invalid input syntax for type uuid: "not-a-uuid"`),
    {
      code: '22P02',
    },
  )
  const logged = safeError(e)
  t.match(logged, { type: 'Error', code: '22P02', stack: /^\s+at / })
  const line = JSON.stringify(logged)
  t.notMatch(line, /deadbeef|not-a-uuid|select/)
})

t.test('Retry-After where a retry can help (timeouts, a busy provider), never on a paused endpoint', async (t) => {
  const signal = new AbortController().signal
  const fail = (e: unknown) =>
    runModel('model', { signal, timeoutMs: 20 }, async () => {
      throw e
    })
  const timedOut = await runModel(
    'model',
    { signal, timeoutMs: 10 },
    (s) => new Promise((_, reject) => s.addEventListener('abort', () => reject(new Error('aborted')))),
  ).catch((e) => e)
  t.match(timedOut, { code: 'inference_failed', headers: { 'Retry-After': /^\d+$/ } })
  t.match(await fail(Object.assign(new Error('429'), { statusCode: 429, responseHeaders: { 'retry-after': '7' } })).catch((e) => e), {
    code: 'inference_failed',
    headers: { 'Retry-After': '7' },
  })
  t.match(await fail(Object.assign(new Error('503'), { statusCode: 503 })).catch((e) => e), { headers: { 'Retry-After': /^\d+$/ } })
  const broken = (await fail(Object.assign(new Error('400'), { statusCode: 400 })).catch((e) => e)) as ApiError
  t.equal(broken.headers, undefined, 'a refused request is not retried')

  const paused = await app.call('/v1/transcribe', { body: { audioUrl: 'https://example.com/a.mp3' }, key: customer.key })
  t.equal(paused.status, 503)
  t.equal(paused.headers.get('retry-after'), null, 'a paused endpoint says no Retry-After')
})

t.test('server timeouts from config: trickled headers and a trickled body are cut off (408)', async (t) => {
  const { testCapability } = await import('../helpers/app.ts')
  const slow = await startTestApp(t, {
    capabilities: [testCapability({ name: 'echo' })],
    config: { http: { headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 1000 } },
  })
  const c = await slow.customer(100)
  const { port } = new URL(slow.url)
  const trickled = async (head: string, drip: string) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()))
    const closed = new Promise<void>((r) => socket.on('close', () => r()))
    socket.write(head)
    const timer = setInterval(() => socket.writable && socket.write(drip), 200)
    await closed
    clearInterval(timer)
    return received
  }
  t.match(await trickled('GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'), /^HTTP\/1\.1 408/, 'headers that never end: 408')
  const body = `POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"text":"`
  t.match(await trickled(body, 'a'), /^HTTP\/1\.1 408/, 'a body that never ends: 408')
  t.equal((await slow.ledger(c.accountId)).balance, 100, 'nothing charged')
})

const thrown = (fn: () => unknown): unknown => {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

t.test('secrets: refused without a shared key off the embedded database; the previous key opens old secrets', async (t) => {
  const refusal = thrown(() => loadSecretKeys({ embedded: false }))
  t.ok(refusal instanceof BootRefusal, 'a boot refusal (one line, no stack)')
  t.match((refusal as Error).message, /^SECRET_ENCRYPTION_KEY must be set when DATABASE_URL is not the embedded database/)
  const oldKey = 'a'.repeat(64)
  const newKey = 'b'.repeat(64)
  const sealed = secretBox(loadSecretKeys({ current: oldKey, embedded: false })).seal('whsec_old')
  const rotated = secretBox(loadSecretKeys({ current: newKey, previous: oldKey, embedded: false }))
  t.equal(rotated.open(sealed), 'whsec_old', 'opened with the previous key')
  t.equal(rotated.open(rotated.seal('whsec_new')), 'whsec_new', 'sealed with the current one')
  t.ok(
    thrown(() => secretBox(loadSecretKeys({ current: newKey, embedded: false })).open(sealed)) instanceof SecretUnreadable,
    'another key cannot open it',
  )
  t.throws(() => loadSecretKeys({ current: 'short', embedded: false }), /64 hex characters/)
})

t.test('a delivery that cannot be signed is recorded failed with its reason, never left pending', async (t) => {
  const { jobCapability } = await import('../helpers/job-capabilities.ts')
  const other = secretBox([Buffer.alloc(32, 7)])
  const hooks = await startTestApp(t, {
    capabilities: [jobCapability],
    worker: true,
    config: { callbacksAllowPrivate: true, webhookRetryDelays: [0.1] },
  })
  const c = await hooks.customer(10)
  // A secret sealed by a process with another key (a second host without the shared SECRET_ENCRYPTION_KEY).
  await rotateWebhookSecret(hooks.services.db, c.accountId, other, hooks.services.now())
  const res = await hooks.call('/v1/jobdoc', { body: { text: 'hi', async: true, callbackUrl: 'http://127.0.0.1:9/hook' }, key: c.key })
  t.equal(res.status, 202)
  const { listAttempts } = await import('../../core/webhooks/webhooks.ts')
  let deliveries: Awaited<ReturnType<typeof listAttempts>> = []
  for (let i = 0; i < 200 && deliveries[0]?.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 100))
    deliveries = await listAttempts(hooks.services.db, res.body.jobId)
  }
  t.equal(deliveries[0]?.status, 'failed')
  t.match(deliveries[0]?.attempts[0]?.error, /^cannot sign: .*SECRET_ENCRYPTION_KEY/)
})

t.test("a PostgreSQL on the embedded port that is not this checkout's is never used (EMBEDDED_PG_PORT named)", async (t) => {
  const url = process.env.DATABASE_URL
  if (!url) return t.comment('skipped: needs the test server (npm test sets DATABASE_URL)')
  const { mkdir, mkdtemp, rm } = await import('node:fs/promises')
  const { startEmbeddedPostgres } = await import('../../core/db/embedded.ts')
  await mkdir('.tap', { recursive: true })
  const otherCheckout = await mkdtemp(`${process.cwd()}/.tap/checkout-`)
  const saved = process.env.EMBEDDED_PG_PORT
  process.env.EMBEDDED_PG_PORT = new URL(url).port
  t.teardown(async () => {
    process.env.EMBEDDED_PG_PORT = saved
    await rm(otherCheckout, { recursive: true, force: true })
  })
  const refused = await startEmbeddedPostgres(otherCheckout, () => {}).catch((e: unknown) => e)
  t.ok(refused instanceof BootRefusal)
  t.match(
    (refused as Error).message,
    /port \d+ \(EMBEDDED_PG_PORT\) is taken by a server that is not this checkout's embedded PostgreSQL; set EMBEDDED_PG_PORT to a free port/,
  )
})
