// C13: the operator API under /admin and the same operations from `npm run admin`; C9 plans and packs.
import t from 'tap'
import { runAdmin } from '../../scripts/admin.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'

const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'echo' })],
  config: { adminToken: 'admin-secret-for-tests-0123456789' },
})
const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
  app.call(path, { ...init, headers: { authorization: 'Bearer admin-secret-for-tests-0123456789' } })

t.test('without ADMIN_TOKEN every /admin route is 404; a wrong token is 401', async (t) => {
  const closed = await startTestApp(t, { capabilities: [] })
  t.equal((await closed.call('/admin/accounts', { body: { email: 'a@b.test' }, headers: { authorization: 'Bearer x' } })).status, 404)
  const wrong = await app.call('/admin/accounts', { body: { email: 'a@b.test' }, headers: { authorization: 'Bearer nope' } })
  t.equal(wrong.status, 401)
  t.equal(wrong.body.error.code, 'unauthorized')
  t.equal(
    (await app.call('/admin/accounts', { body: { email: 'a@b.test' }, key: 'ksk_live_x' })).status,
    401,
    'an API key is not an admin token',
  )
})

t.test('account, packs, plans, keys, caps, revocation, webhook secret', async (t) => {
  const created = await admin('/admin/accounts', { body: { email: 'Owner@Example.test' } })
  t.equal(created.status, 201)
  t.match(created.body, { id: String, email: 'owner@example.test', plan: 'none', balance: 0, reserved: 0, available: 0 })
  const id = created.body.id
  t.equal((await admin('/admin/accounts', { body: { email: 'owner@example.test' } })).status, 400, 'email is unique')
  t.equal((await admin('/admin/accounts', { body: { email: 'not-an-email' } })).body.error.code, 'invalid_request')

  let res = await admin(`/admin/accounts/${id}/credits`, { body: { pack: 'first' } })
  t.equal(res.body.balance, 500)
  res = await admin(`/admin/accounts/${id}/credits`, { body: { pack: 'first' } })
  t.equal(res.status, 409)
  t.equal(res.body.error.code, 'first_pack_used')
  for (const [pack, credits] of [
    ['starter', 2000],
    ['growth', 10500],
    ['scale', 55000],
  ] as const) {
    const before = (await admin(`/admin/accounts/${id}`)).body.balance
    t.equal((await admin(`/admin/accounts/${id}/credits`, { body: { pack } })).body.balance, before + credits, pack)
  }
  res = await admin(`/admin/accounts/${id}/credits`, { body: { credits: 7, reason: 'goodwill' } })
  t.equal(res.body.balance, 500 + 2000 + 10500 + 55000 + 7)
  t.equal((await admin(`/admin/accounts/${id}/credits`, { body: { credits: 1.5, reason: 'x' } })).status, 400, 'credits are whole')

  res = await admin(`/admin/accounts/${id}/keys`, { body: { name: 'ci', monthlySpendCap: 100 } })
  t.equal(res.status, 409)
  t.equal(res.body.error.code, 'plan_required', 'spend caps need the Team plan')
  res = await admin(`/admin/accounts/${id}/plan`, { body: { plan: 'team' } })
  t.equal(res.body.plan, 'team')
  t.equal(res.body.balance, 68007 + 2500, 'a new plan grants its bundle now')

  const key = await admin(`/admin/accounts/${id}/keys`, { body: { name: 'ci', monthlySpendCap: 100 } })
  t.equal(key.status, 201)
  t.match(key.body, { id: String, key: /^ksk_live_[0-9A-Za-z]{32}$/, name: 'ci', monthlySpendCap: 100 })
  t.equal(key.body.prefix, key.body.key.slice(0, 12))
  const [stored] = await app.services.db.sql(`select encode(key_hash, 'hex') as h from api_keys where id = ?`, [key.body.id])
  t.not(stored!.h, key.body.key, 'only the hash is stored')
  t.notOk(
    JSON.stringify(await app.services.db.sql(`select * from api_keys`)).includes(key.body.key),
    'the key appears nowhere in the table',
  )
  t.equal((await app.call('/v1/account', { key: key.body.key })).body.plan, 'team')

  res = await admin(`/admin/keys/${key.body.id}`, { method: 'PATCH', body: { monthlySpendCap: null } })
  t.match(res.body, {
    id: key.body.id,
    prefix: key.body.prefix,
    name: 'ci',
    mode: 'live',
    permissions: 'all',
    capabilities: null,
    monthlySpendCap: null,
  })
  res = await admin(`/admin/keys/${key.body.id}`, { method: 'DELETE' })
  t.match(res.body, { id: key.body.id, revokedAt: String })
  t.equal((await app.call('/v1/account', { key: key.body.key })).status, 401, 'revoked at once')

  const secret = await admin(`/admin/accounts/${id}/webhook-secret`, { method: 'POST' })
  t.match(secret.body, { secret: /^whsec_/, livemode: true })
  const test = await admin(`/admin/accounts/${id}/webhook-secret`, { body: { mode: 'test' } })
  t.match(test.body, { secret: /^whsec_/, livemode: false })
  const [sealed] = await app.services.db.sql(`select test_webhook_secret from accounts where id = ?`, [id])
  t.equal(app.services.secrets.open(sealed!.test_webhook_secret), test.body.secret, 'the test secret is stored sealed in its own column')
  t.notOk(sealed!.test_webhook_secret.includes(test.body.secret))
  t.equal((await admin(`/admin/accounts/${id}/webhook-secret`, { body: { mode: 'sandbox' } })).status, 400)
  const rotated = await admin(`/admin/accounts/${id}/webhook-secret`, { method: 'POST' })
  t.not(rotated.body.secret, secret.body.secret)
  const [row] = await app.services.db.sql(`select webhook_secret from accounts where id = ?`, [id])
  t.notOk(row!.webhook_secret.includes(rotated.body.secret), 'stored encrypted, not in clear')
  t.equal(app.services.secrets.open(row!.webhook_secret), rotated.body.secret, 'and usable for signing')
  t.notOk(JSON.stringify((await admin(`/admin/accounts/${id}`)).body).includes('whsec'), 'never returned again')

  t.equal((await admin('/admin/accounts/00000000-0000-4000-8000-000000000000')).status, 404)
  t.equal((await admin('/admin/accounts/not-a-uuid')).status, 404)
  const [ledger] = await app.services.db.sql(`select sum(amount)::bigint as s from ledger where account_id = ?`, [id])
  t.equal(Number(ledger!.s), (await admin(`/admin/accounts/${id}`)).body.balance, 'balance == sum(ledger)')
})

t.test('the CLI runs the same operations and prints one JSON object each', async (t) => {
  const prev = process.env.DATABASE_URL
  process.env.DATABASE_URL = app.services.db.url
  t.teardown(() => {
    process.env.DATABASE_URL = prev
  })
  const out: any[] = []
  const print = (j: unknown) => out.push(j)
  t.equal(await runAdmin(['account:create', 'cli@example.test', '--plan', 'developer'], print), 0)
  const account = out.at(-1)
  t.match(account, { email: 'cli@example.test', plan: 'developer', balance: 1900 })
  t.equal(await runAdmin(['account:credits', account.id, '--pack', 'first'], print), 0)
  t.equal(out.at(-1).balance, 2400)
  t.equal(await runAdmin(['account:credits', account.id, '--pack', 'first'], print), 1)
  t.equal(out.at(-1).error.code, 'first_pack_used')
  t.equal(await runAdmin(['key:create', account.id, '--name', 'cli'], print), 0)
  const key = out.at(-1)
  t.match(key.key, /^ksk_live_/)
  const live = await app.call('/v1/account', { key: key.key })
  t.equal(live.body.balance, 2400, 'the key works against the API')
  t.equal(await runAdmin(['key:revoke', key.id], print), 0)
  t.equal(await runAdmin(['webhook-secret', account.id], print), 0)
  t.match(out.at(-1), { secret: /^whsec_/, livemode: true })
  t.equal(await runAdmin(['webhook-secret', account.id, '--mode', 'test'], print), 0)
  t.match(out.at(-1), { secret: /^whsec_/, livemode: false })
  t.equal(await runAdmin(['nonsense', 'x'], print), 2)

  // quickstart: one command from nothing to a funded key, printed as shell exports (eval "$(…)").
  t.equal(await runAdmin(['quickstart', 'quick@example.test'], print), 0)
  const exports = Object.fromEntries(
    (out.at(-1) as string)
      .split('\n')
      .filter((line) => line.startsWith('export '))
      .map((line) => /^export (\w+)='([^']*)'$/.exec(line)!.slice(1, 3)),
  )
  t.same(Object.keys(exports).sort(), ['ACCOUNT_ID', 'BASE', 'KEY', 'TEST_KEY', 'TEST_WEBHOOK_SECRET', 'WEBHOOK_SECRET'])
  const quick = await app.call('/v1/account', { key: exports.KEY })
  t.match(quick.body, { id: exports.ACCOUNT_ID, balance: 500 }, 'the exported key works and the account has its trial credits')
  t.match(exports.TEST_KEY, /^ksk_test_/)
  const trial = await app.call('/v1/echo', { key: exports.TEST_KEY, body: { text: 'first call' } })
  t.equal(trial.status, 200, 'the exported test key answers a first call')
  t.equal(trial.body.usage.credits, 0, 'free')
  t.equal(await runAdmin(['quickstart', '--credits', '20'], print), 0, 'the email is optional')
  t.match(out.at(-1), /: 20 credits;/)
})

t.test('plans renew each billing period (C9)', async (t) => {
  const { renewPlans } = await import('../../core/accounts/accounts.ts')
  const created = await admin('/admin/accounts', { body: { email: 'renew@example.test', plan: 'developer' } })
  t.equal(created.body.balance, 1900)
  const nextMonth = new Date(Date.now() + 32 * 86400_000)
  await renewPlans(app.services.db, nextMonth)
  t.equal((await admin(`/admin/accounts/${created.body.id}`)).body.balance, 3800, 'a fresh bundle; unused credits stay')
  await renewPlans(app.services.db, nextMonth)
  t.equal((await admin(`/admin/accounts/${created.body.id}`)).body.balance, 3800, 'once per period')
})
