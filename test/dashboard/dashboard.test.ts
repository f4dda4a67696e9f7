// The dashboard over HTTP: sign-in by a one-time emailed link (through a fake SMTP server), the session
// cookie, CSRF on every state change, sign-out, link rate limits, and isolation between two accounts.
import t from 'tap'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { createMailer } from '../../core/mail.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { WebClient as Client } from '../helpers/web-client.ts'

interface Mail {
  to: string
  raw: string
}

async function fakeSmtp(): Promise<{ url: string; mails: Mail[] }> {
  const mails: Mail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let raw = ''
      stream.on('data', (c: Buffer) => (raw += c.toString()))
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw })
        done()
      })
    },
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, mails }
}

const smtp = await fakeSmtp()
const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'echo-test', price: 3 })],
  env: { SMTP_URL: smtp.url, TRUST_PROXY_HOPS: '1', RATE_LIMITS: '{"dashboard-login-ip": 1000}' },
})
app.services.config.dashboardUrl = app.url

function linkIn(raw: string): string {
  const unfolded = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  return /https?:\/\/\S+\/dashboard\/login\/verify\?token=[A-Za-z0-9_-]{43}/.exec(unfolded)![0]
}

async function signIn(email: string): Promise<Client> {
  const c = new Client(app)
  await c.get('/dashboard/login')
  const before = smtp.mails.length
  t.equal((await c.post('/dashboard/login', { email })).status, 200)
  const mail = smtp.mails.slice(before).find((m) => m.to === email)!
  const link = new URL(linkIn(mail.raw))
  await c.get(link.pathname + link.search)
  const res = await c.post('/dashboard/login/verify', { token: link.searchParams.get('token')! })
  t.equal(res.status, 302)
  await c.get('/dashboard')
  return c
}

t.test('sign-in by a one-time link sent through SMTP_URL; HttpOnly SameSite=Lax cookie; sign-out', async (t) => {
  const c = new Client(app)
  const login = await c.get('/dashboard/login')
  t.equal(login.status, 200)
  t.match(login.text, /Email me a sign-in link/)
  t.equal((await c.request('/dashboard/login', { form: { email: 'owner@example.test' } })).status, 400, 'no CSRF field → refused')
  t.equal(smtp.mails.length, 0, 'and no mail sent')

  const sent = await c.post('/dashboard/login', { email: 'Owner@Example.test' })
  t.equal(sent.status, 200)
  t.match(sent.text, /Check your email/)
  t.equal(smtp.mails.length, 1)
  t.equal(smtp.mails[0]!.to, 'owner@example.test')
  const link = new URL(linkIn(smtp.mails[0]!.raw))
  const token = link.searchParams.get('token')!
  const stored = JSON.stringify(await app.services.db.sql(`select encode(token_hash, 'hex') as h, email from login_links`))
  t.notOk(stored.includes(token), 'only the hash of the token is stored')

  const confirm = await c.get(link.pathname + link.search)
  t.equal(confirm.status, 200, 'opening the link (as a mail scanner would) does not use it up')
  const signed = await c.post('/dashboard/login/verify', { token })
  t.equal(signed.status, 302)
  t.equal(signed.headers.get('location'), '/dashboard')
  const cookie = signed.headers.getSetCookie().find((s) => s.startsWith('dash_session='))!
  t.match(cookie, /httponly/i)
  t.match(cookie, /samesite=lax/i)
  t.notMatch(cookie, /secure/i, 'not Secure over plain http')
  const overview = await c.get('/dashboard')
  t.equal(overview.status, 200)
  t.match(overview.text, /owner@example\.test/)
  t.match(overview.text, /Balance/)
  t.match(overview.text, /<svg/)

  const other = new Client(app)
  await other.get(link.pathname + link.search)
  const again = await other.post('/dashboard/login/verify', { token })
  t.equal(again.status, 400, 'a used link does not sign in twice')
  t.match(again.text, /expired or was already used/)

  const out = await c.post('/dashboard/logout')
  t.equal(out.status, 302)
  t.equal((await c.get('/dashboard')).headers.get('location'), '/dashboard/login', 'signed out')
  t.equal(Number((await app.services.db.sql(`select count(*) as n from dashboard_sessions`))[0]!.n), 0, 'the session is gone')
})

t.test('behind an https proxy (TRUST_PROXY_HOPS) the cookie is Secure; a link older than 15 minutes is refused', async (t) => {
  const c = new Client(app)
  await c.request('/dashboard/login', { headers: { 'x-forwarded-proto': 'https' } })
  const before = smtp.mails.length
  await c.request('/dashboard/login', { form: { _csrf: c.csrf, email: 'secure@example.test' }, headers: { 'x-forwarded-proto': 'https' } })
  const token = new URL(linkIn(smtp.mails[before]!.raw)).searchParams.get('token')!
  const signed = await c.request('/dashboard/login/verify', { form: { _csrf: c.csrf, token }, headers: { 'x-forwarded-proto': 'https' } })
  t.match(
    signed.headers.getSetCookie().find((s) => s.startsWith('dash_session='))!,
    /secure/i,
  )

  await c.post('/dashboard/login', { email: 'late@example.test' })
  const late = new URL(linkIn(smtp.mails.at(-1)!.raw)).searchParams.get('token')!
  await app.services.db.sql(`update login_links set expires_at = now() - interval '1 second' where email = 'late@example.test'`)
  t.equal((await c.post('/dashboard/login/verify', { token: late })).status, 400)
})

t.test('link requests are rate limited per email address and per client address', async (t) => {
  const c = new Client(app)
  await c.get('/dashboard/login')
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push((await c.post('/dashboard/login', { email: 'flood@example.test' })).status)
  t.same(statuses, [200, 200, 200, 429])
  t.equal(smtp.mails.filter((m) => m.to === 'flood@example.test').length, 3)
  app.services.config.rateLimits['dashboard-login-ip'] = 2
  t.teardown(() => void (app.services.config.rateLimits['dashboard-login-ip'] = 1000))
  const spread = []
  for (let i = 0; i < 3; i++) spread.push((await c.post('/dashboard/login', { email: `spread${i}@example.test` })).status)
  t.same(spread, [200, 200, 429], 'many addresses from one client')
  // Behind one proxy, which appends the address it saw: what the client wrote to the left is not an address.
  const spoofed = []
  for (let i = 0; i < 3; i++) {
    const headers = { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` }
    spoofed.push((await c.request('/dashboard/login', { form: { _csrf: c.csrf, email: `spoofed${i}@example.test` }, headers })).status)
  }
  t.same(spoofed, [200, 200, 429], 'a made-up X-Forwarded-For does not lift the limit per address')
})

t.test('without SMTP_URL the link is printed plainly on the console, never in the JSON log', async (t) => {
  const lines: string[] = []
  const printed: string[] = []
  const mailer = app.services.mailer
  app.services.mailer = createMailer(
    undefined,
    'x@localhost',
    (m) => lines.push(m),
    (text) => printed.push(text),
  )
  t.teardown(() => void (app.services.mailer = mailer))
  const c = new Client(app)
  await c.get('/dashboard/login')
  await c.post('/dashboard/login', { email: 'dev@example.test' })
  t.equal(lines.length, 1)
  t.notMatch(lines[0], /token=/, 'the log line carries no link')
  t.equal(printed.length, 1)
  t.match(printed[0], /^http\S+\/dashboard\/login\/verify\?token=\S+$/m, 'the link is a line of its own')
  const link = new URL(linkIn(printed[0]!))
  await c.get(link.pathname + link.search)
  t.equal((await c.post('/dashboard/login/verify', { token: link.searchParams.get('token')! })).status, 302)
})

t.test('two signed-in accounts: no page shows the other’s keys, usage or secrets; CSRF on every change', async (t) => {
  const a = await signIn('alice@example.test')
  const b = await signIn('bob@example.test')

  const created = await a.post('/dashboard/keys', { name: 'alice-prod' })
  t.equal(created.status, 200)
  const key = /data-testid="new-key">(ksk_live_[0-9A-Za-z]{32})</.exec(created.text)![1]!
  const keyId = /data-key-id="([0-9a-f-]{36})"/.exec(created.text)![1]!
  const listed = await a.get('/dashboard/keys')
  t.notOk(listed.text.includes(key), 'the secret is shown once, never again')
  t.ok(listed.text.includes(key.slice(0, 12)), 'its prefix is listed')

  const [aliceId] = await app.services.db.sql(`select id from accounts where email = 'alice@example.test'`)
  await app.topUp(aliceId!.id, 100)
  const call = await app.call('/v1/echo-test', { key, body: { text: 'hello' } })
  t.equal(call.status, 200)
  const requestId = call.headers.get('x-request-id') ?? call.headers.get('request-id') ?? ''
  const rotated = await a.post('/dashboard/webhooks/rotate')
  const secretA = /data-testid="webhook-secret">(whsec_[^<]+)</.exec(rotated.text)![1]!
  t.ok((await a.post('/dashboard/webhooks/reveal')).text.includes(secretA), 'reveal shows the secret the rotation made')
  await b.post('/dashboard/webhooks/rotate')

  const pages = ['/dashboard', '/dashboard/keys', '/dashboard/webhooks', '/dashboard/usage', '/dashboard/usage.csv', '/dashboard/billing']
  for (const p of pages) {
    const res = await b.get(p)
    t.equal(res.status, 200, p)
    t.notOk(res.text.includes(key.slice(0, 12)), `${p}: no key of alice`)
    t.notOk(res.text.includes('alice'), `${p}: nothing of alice`)
    t.notOk(res.text.includes(secretA), `${p}: not alice's secret`)
    if (requestId) t.notOk(res.text.includes(requestId), `${p}: not alice's calls`)
  }
  const bobReveal = await b.post('/dashboard/webhooks/reveal')
  t.notOk(bobReveal.text.includes(secretA), 'bob reveals his own secret only')
  t.match(bobReveal.text, /data-testid="webhook-secret">whsec_/)
  t.notOk((await b.get(`/dashboard/usage?keyId=${keyId}`)).text.includes('echo-test '), 'filtering by alice’s key shows bob nothing')
  const aliceUsage = await a.get('/dashboard/usage')
  t.match(aliceUsage.text, /echo-test/, 'alice sees her own call')
  t.match((await a.get('/dashboard/usage.csv')).text, /"charge","-3"/)

  // Bob cannot act on alice's key, even with a valid form of his own.
  t.equal((await b.post(`/dashboard/keys/${keyId}/revoke`)).status, 404)
  t.equal((await b.post(`/dashboard/keys/${keyId}/cap`, { monthlySpendCap: '5' })).status, 404)
  t.equal((await app.call('/v1/account', { key })).status, 200, 'alice’s key still works')

  // CSRF: no token, or another session's token, changes nothing.
  const bobCsrf = b.csrf
  t.equal((await a.request(`/dashboard/keys/${keyId}/revoke`, { form: {} })).status, 400)
  t.equal((await a.request(`/dashboard/keys/${keyId}/revoke`, { form: { _csrf: bobCsrf } })).status, 400)
  t.equal((await a.request('/dashboard/keys', { form: { name: 'sneaky', _csrf: bobCsrf } })).status, 400)
  t.equal((await a.request('/dashboard/webhooks/rotate', { form: {} })).status, 400)
  t.equal((await a.request('/dashboard/logout', { form: {} })).status, 400)
  t.equal((await app.call('/v1/account', { key })).status, 200)
  t.equal(Number((await app.services.db.sql(`select count(*) as n from api_keys where name = 'sneaky'`))[0]!.n), 0)
  await a.get('/dashboard/keys')
  const revealedAgain = await a.post('/dashboard/webhooks/reveal')
  t.ok(revealedAgain.text.includes(secretA), 'the refused rotate left the secret as it was')

  await a.get('/dashboard/keys')
  t.equal((await a.post(`/dashboard/keys/${keyId}/revoke`)).status, 302)
  t.equal((await app.call('/v1/account', { key })).status, 401, 'revoked from the dashboard')
})

t.test('spend caps need the Team plan; names are escaped; without Stripe purchases are the operator’s', async (t) => {
  const c = await signIn('carol@example.test')
  const keys = await c.get('/dashboard/keys')
  t.notMatch(keys.text, /name="monthlySpendCap"/, 'no cap field without the Team plan')
  const refused = await c.post('/dashboard/keys', { name: 'x', monthlySpendCap: '100' })
  t.equal(refused.status, 409)
  t.match(refused.text, /Team plan/)
  await app.services.db.sql(`update accounts set plan = 'team' where email = 'carol@example.test'`)
  await c.get('/dashboard/keys')
  const made = await c.post('/dashboard/keys', { name: '<script>alert(1)</script>', monthlySpendCap: '100' })
  t.equal(made.status, 200)
  t.notOk(made.text.includes('<script>alert(1)</script>'), 'the name is escaped')
  t.ok(made.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))
  const [row] = await app.services.db.sql(`select id, monthly_spend_cap from api_keys where name = '<script>alert(1)</script>'`)
  t.equal(Number(row!.monthly_spend_cap), 100)
  t.equal((await c.post(`/dashboard/keys/${row!.id}/cap`, { monthlySpendCap: '250' })).status, 302)
  t.equal(Number((await app.services.db.sql(`select monthly_spend_cap from api_keys where id = ?`, [row!.id]))[0]!.monthly_spend_cap), 250)

  const billing = await c.get('/dashboard/billing')
  t.match(billing.text, /Purchases on this service are made by the operator/)
  t.notMatch(billing.text, /action="\/dashboard\/billing\/checkout"/, 'no buy buttons')
  t.equal((await c.post('/dashboard/billing/checkout', { pack: 'starter' })).status, 404)
  t.equal((await app.call('/stripe/webhook', { body: {} })).status, 404, 'no Stripe webhook without Stripe')
})

t.test('maintenance removes expired sign-in links and sessions', async (t) => {
  const c = await signIn('erin@example.test')
  const { runMaintenance } = await import('../../core/maintenance.ts')
  const now = app.services.now
  app.services.now = () => new Date(Date.now() + 8 * 24 * 3600_000)
  t.teardown(() => void (app.services.now = now))
  const report = await runMaintenance(app.services)
  t.ok(report.signInRowsRemoved >= 2, 'the used link and the session')
  app.services.now = now
  t.equal((await c.get('/dashboard')).headers.get('location'), '/dashboard/login', 'the session has ended')
})

t.test('sign-up reaches a first call: SIGNUP_CREDITS and a test key; the Requests page shows live and test apart', async (t) => {
  app.services.config.signupCredits = 25
  t.teardown(() => void (app.services.config.signupCredits = 0))
  const c = await signIn('newcomer@example.test')
  const [account] = await app.services.db.sql(`select id, balance from accounts where email = 'newcomer@example.test'`)
  t.equal(Number(account!.balance), 25, 'the trial credits, granted with the account')
  await app.expectLedger(t, account!.id, 25)
  const again = await signIn('newcomer@example.test')
  t.ok(again, 'a second sign-in …')
  await app.expectLedger(t, account!.id, 25) // … grants nothing again

  const keys = await c.get('/dashboard/keys')
  const testKeyId = /data-key-id="([0-9a-f-]{36})"[\s\S]*?>test</.exec(keys.text)?.[1]
  t.ok(testKeyId, 'the sign-up test key is listed as a test key')
  t.notOk(/ksk_test_[0-9A-Za-z]{32}/.test(keys.text), 'not shown until asked')
  const shown = await c.post(`/dashboard/keys/${testKeyId}/reveal`)
  const testKey = /data-testid="new-key">(ksk_test_[0-9A-Za-z]{32})</.exec(shown.text)![1]!
  const docsKey = await c.get('/dashboard/docs-key')
  t.same(JSON.parse(docsKey.text), { key: testKey }, '/docs "Try it out" gets the same test key')
  t.equal(docsKey.headers.get('cache-control'), 'no-store')
  t.equal((await new Client(app).get('/dashboard/docs-key')).status, 302, 'signed out: no key')

  const first = await app.call('/v1/echo-test', { key: testKey, body: { text: 'first call' } })
  t.equal(first.status, 200)
  t.equal(first.body.usage.credits, 0)
  const live = await c.post('/dashboard/keys', { name: 'prod', mode: 'live' })
  const liveKey = /data-testid="new-key">(ksk_live_[0-9A-Za-z]{32})</.exec(live.text)![1]!
  const paid = await app.call('/v1/echo-test', { key: liveKey, body: { text: 'paid' } })
  t.equal(paid.status, 200)
  await app.expectLedger(t, account!.id, 22)

  const liveLog = await c.get('/dashboard/requests')
  t.equal(liveLog.status, 200)
  t.ok(liveLog.text.includes(paid.headers.get('x-request-id')!), 'the live call')
  t.notOk(liveLog.text.includes(first.headers.get('x-request-id')!), 'not the test call')
  const testLog = await c.get('/dashboard/requests?mode=test&status=2xx')
  t.ok(testLog.text.includes(first.headers.get('x-request-id')!), 'the test call, under Test')
  t.notOk(testLog.text.includes(paid.headers.get('x-request-id')!))
  t.equal((await c.post('/dashboard/keys', { mode: 'sandbox' })).status, 400)

  // A GET never makes a key: with the test key revoked, /docs gets none and asks for one.
  t.equal((await c.post(`/dashboard/keys/${testKeyId}/revoke`)).status, 302)
  const testKeys = async () =>
    Number((await app.services.db.sql(`select count(*) as n from api_keys where account_id = ? and mode = 'test'`, [account!.id]))[0]!.n)
  const before = await testKeys()
  t.same(JSON.parse((await c.get('/dashboard/docs-key')).text), { key: null }, 'no test key to lend')
  t.equal(await testKeys(), before, 'and none was created by the GET')
})

t.test('each row of the Requests page links to its detail: message, dry run, replay, tags', async (t) => {
  const c = await signIn('debugger@example.test')
  const live = await c.post('/dashboard/keys', { name: 'debug', mode: 'live' })
  const key = /data-testid="new-key">(ksk_live_[0-9A-Za-z]{32})</.exec(live.text)![1]!
  const bad = await app.call('/v1/echo-test', { key, body: { text: '' }, headers: { 'service-metadata': '{"order":"A-17"}' } })
  t.equal(bad.status, 400)
  const id = bad.headers.get('x-request-id')!
  const list = await c.get('/dashboard/requests')
  t.match(list.text, `href="/dashboard/requests/${id}"`, 'the row links to its detail')
  const detail = await c.get(`/dashboard/requests/${id}`)
  t.equal(detail.status, 200)
  t.match(detail.text, /does not match the schema of this endpoint/, 'the error message')
  t.match(detail.text, /<code>order<\/code> = <code>A-17<\/code>/, 'the Service-Metadata tags')
  t.equal((await c.get('/dashboard/requests/req_01JNMQ6ZK3V7T5W8X9Y0A1B2C3')).status, 404, 'an id of nobody')
  const other = await signIn('someone-else@example.test')
  t.equal((await other.get(`/dashboard/requests/${id}`)).status, 404, "another account's request")
})

t.test('finding 3: arrays, nested objects and NUL in a form are 400 pages; nothing is stored, nothing sent', async (t) => {
  const c = await signIn('frank@example.test')
  /** A form body written by hand: URLSearchParams cannot say `name[a][b]` the way qs reads it. */
  const raw = (path: string, body: string) =>
    fetch(app.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      body,
    })
  const keysBefore = Number((await app.services.db.sql(`select count(*) as n from api_keys`))[0]!.n)
  const mailsBefore = smtp.mails.length
  const csrf = encodeURIComponent(c.csrf)
  for (const body of [`_csrf=${csrf}&name[a][b]=1`, `_csrf=${csrf}&name[]=x`, `_csrf=${csrf}&name=a%00b`, `_csrf=${csrf}&name=x&name=y`]) {
    const res = await raw('/dashboard/keys', body)
    t.equal(res.status, 400, body)
    t.match(await res.text(), /does not match its schema/)
  }
  t.equal(Number((await app.services.db.sql(`select count(*) as n from api_keys`))[0]!.n), keysBefore, 'no key made')
  const anon = new Client(app)
  await anon.get('/dashboard/login')
  for (const [field, value] of [
    ['email[]', 'a@example.test'],
    ['email[a][b]', '1'],
    ['email', 'a\u0000b@example.test'],
    ['email', 'x'.repeat(400)],
  ] as const) {
    const res = await anon.request('/dashboard/login', { form: { _csrf: anon.csrf, [field]: value } })
    t.equal(res.status, 400, field)
  }
  t.equal(smtp.mails.length, mailsBefore, 'no mail sent')
  t.equal(Number((await app.services.db.sql(`select count(*) as n from login_links where email = 'a@example.test'`))[0]!.n), 0)
})

t.test('finding 7: the confirmation page names the email; only a POST from this dashboard signs in', async (t) => {
  const attacker = new Client(app)
  await attacker.get('/dashboard/login')
  const before = smtp.mails.length
  await attacker.post('/dashboard/login', { email: 'mallory@example.test' })
  const link = new URL(linkIn(smtp.mails[before]!.raw))
  const victim = new Client(app)
  const confirm = await victim.get(link.pathname + link.search)
  t.equal(confirm.status, 200)
  t.match(confirm.text, /Sign in as <span data-testid="sign-in-email">mallory@example\.test<\/span>/, 'the page says whose account')
  t.notOk(victim.cookies.has('dash_session'), 'opening the link signs nobody in')
  const forged = await victim.request('/dashboard/login/verify', {
    form: { _csrf: victim.csrf, token: link.searchParams.get('token')! },
    headers: { origin: 'http://evil.example' },
  })
  t.equal(forged.status, 400, 'a form posted from another origin is refused')
  t.notOk(victim.cookies.has('dash_session'))
  const lookalike = await victim.request('/dashboard/login/verify', {
    form: { _csrf: victim.csrf, token: link.searchParams.get('token')! },
    headers: { origin: `${app.url}.evil.example` },
  })
  t.equal(lookalike.status, 400, 'origins are compared exactly, not by prefix')
  const ok = await victim.post('/dashboard/login/verify', { token: link.searchParams.get('token')! })
  t.equal(ok.status, 302, 'the link is still good for the POST from its own page')

  const unknown = await new Client(app).get(`/dashboard/login/verify?token=${'A'.repeat(43)}`)
  t.equal(unknown.status, 400, 'an unknown or used link shows no confirmation form')
  t.match(unknown.text, /expired or was already used/)
})

t.test('finding 7: "Go back" only follows a Referer of exactly this origin', async (t) => {
  const c = await signIn('grace@example.test')
  const back = async (referer: string) => {
    const res = await c.request('/dashboard/keys', { form: { _csrf: 'wrong' }, headers: { referer } })
    t.equal(res.status, 400)
    return /href="([^"]*)">Go back/.exec(res.text)![1]
  }
  t.equal(await back(`${app.url}/dashboard/keys?x=1`), '/dashboard/keys?x=1', 'a page of this dashboard')
  t.equal(await back(`${app.url}.evil.example/phish`), '/dashboard', 'a host that merely starts with the origin')
  t.equal(await back(`${app.url}@evil.example/`), '/dashboard', 'credentials trick')
  t.equal(await back('not a url'), '/dashboard')
})

t.test('finding 7: cookies are Secure whenever DASHBOARD_URL is https, even over plain http from a proxy', async (t) => {
  const dashboardUrl = app.services.config.dashboardUrl
  app.services.config.dashboardUrl = 'https://dash.example.test'
  t.teardown(() => void (app.services.config.dashboardUrl = dashboardUrl))
  const c = new Client(app)
  const login = await c.get('/dashboard/login')
  t.match(
    login.headers.getSetCookie().find((s) => s.startsWith('dash_csrf='))!,
    /;\s*secure/i,
    'the pre-session cookie',
  )
  const before = smtp.mails.length
  await c.post('/dashboard/login', { email: 'heidi@example.test' })
  const link = new URL(linkIn(smtp.mails[before]!.raw))
  t.equal(link.origin, 'https://dash.example.test', 'the link names the public origin')
  const signed = await c.post('/dashboard/login/verify', { token: link.searchParams.get('token')! })
  t.equal(signed.status, 302)
  t.match(
    signed.headers.getSetCookie().find((s) => s.startsWith('dash_session='))!,
    /;\s*secure/i,
    'the session cookie',
  )
})

t.test('finding 7: an API without SMTP_URL refuses to start unless MAIL_TO_LOG=true or the database is embedded', async (t) => {
  const { mailToLogWarning } = await import('../../core/mail.ts')
  const db = 'postgres://db.example.test/prod'
  const refusal = (config: Parameters<typeof mailToLogWarning>[0]) => {
    try {
      mailToLogWarning(config)
    } catch (e) {
      return e
    }
  }
  const { BootRefusal } = await import('../../core/config.ts')
  t.ok(refusal({ databaseUrl: db }) instanceof BootRefusal, 'a boot refusal (one line)')
  t.match(refusal({ databaseUrl: db }), { message: /^SMTP_URL is not set/ })
  t.match(refusal({ mailToLog: false }), { message: /^SMTP_URL is not set/ }, 'MAIL_TO_LOG=false refuses even on the embedded database')
  t.match(mailToLogWarning({ databaseUrl: db, mailToLog: true }), /^WARNING: no SMTP_URL/)
  t.match(mailToLogWarning({}), /^WARNING/, 'npm start on the embedded database (development) still starts, and says so')
  t.equal(mailToLogWarning({ databaseUrl: db, smtpUrl: 'smtp://mail' }), null)

  // The real entry point: one line, exit 1, before it touches the database.
  const { spawnSync } = await import('node:child_process')
  const env = { ...process.env, DATABASE_URL: 'postgres://127.0.0.1:1/none', SMTP_URL: '', MAIL_TO_LOG: '', PORT: '0' }
  const run = spawnSync(process.execPath, ['core/server.ts', '--api'], { env, encoding: 'utf8', timeout: 60_000 })
  t.equal(run.status, 1)
  t.match(run.stderr, /^Refusing to boot: SMTP_URL is not set, so sign-in links would be printed in the log/)
})
