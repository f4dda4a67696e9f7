// Single sign-on against a real OpenID provider (oidc-provider on loopback): a sign-in through it creates a member
// with the default role and a session confined to that account; each forged or replayed answer (wrong audience,
// expired token, bad nonce, replayed code, a callback from another browser) is refused and audited; enforced SSO
// refuses sign-in links for its domains. The closing figures: what a sign-in costs in round trips.
import t from 'tap'
import { createMailer } from '../../core/mail.ts'
import { startTestApp } from '../helpers/app.ts'
import { startTestProvider } from '../helpers/oidc-provider.ts'
import { auditEntries } from '../helpers/teams.ts'
import { WebClient } from '../helpers/web-client.ts'

const app = await startTestApp(t, { config: { callbacksAllowPrivate: true } })
app.services.config.dashboardUrl = app.url
const mails: string[] = []
app.services.mailer = createMailer(
  undefined,
  'x@localhost',
  () => {},
  (text) => mails.push(text),
)
const callback = `${app.url}/dashboard/sso/callback`
const idp = await startTestProvider(t, [{ client_id: 'capapi', client_secret: 'capapi-secret', redirect_uris: [callback] }])
const owner = await app.customer(0)

const sso = (body: object) => app.call('/v1/sso', { key: owner.key, method: 'PUT', body })
const settings = {
  issuer: idp.issuer,
  clientId: 'capapi',
  clientSecret: 'capapi-secret',
  domains: ['corp.test'],
  defaultRole: 'developer',
  enforced: false,
}

/**
 * A browser signing in through the provider up to the redirect back to the app: the start form, the provider's
 * login and consent forms. Returns the callback URL (not yet visited) and the browser requests it took.
 */
async function throughProvider(browser: WebClient, email: string): Promise<{ callbackUrl: string; browserTrips: number }> {
  let trips = 0
  await browser.get('/dashboard/login')
  let res = await browser.request('/dashboard/sso/start', { form: { _csrf: browser.csrf, email } })
  trips++
  let url = new URL(res.headers.get('location')!, app.url).href
  for (let hops = 0; hops < 12; hops++) {
    if (url.startsWith(callback)) return { callbackUrl: url, browserTrips: trips }
    res = await browser.request(url)
    trips++
    const location = res.headers.get('location')
    if (location) {
      url = new URL(location, url).href
      continue
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(res.text)?.[1]
    const prompt = /name="prompt" value="(\w+)"/.exec(res.text)?.[1]
    if (!action || !prompt) throw new Error(`stuck at ${url}: ${res.status} ${res.text.slice(0, 200)}`)
    res = await browser.request(new URL(action, url).href, {
      form: prompt === 'login' ? { prompt, login: email, password: 'x' } : { prompt },
    })
    trips++
    url = new URL(res.headers.get('location')!, url).href
  }
  throw new Error('too many redirects')
}

const lastFailure = async () => (await auditEntries(app, owner.accountId)).filter((e) => e.action === 'sign_in.failed').at(-1)

t.test('PUT /v1/sso: discovery checked, the secret never returned, a domain belongs to one account', async (t) => {
  const bad = await sso({ ...settings, issuer: 'http://127.0.0.1:9/nothing' })
  t.equal(bad.status, 400, 'an issuer without a discovery document is refused')
  t.equal(bad.body.error.details[0].path, '/issuer')
  const noSecret = await sso({ ...settings, clientSecret: undefined })
  t.equal(noSecret.status, 400, 'the first settings need the secret')
  const put = await sso(settings)
  t.equal(put.status, 200)
  t.match(put.body, { issuer: idp.issuer, clientId: 'capapi', clientSecretSet: true, domains: ['corp.test'], defaultRole: 'developer' })
  t.notOk(JSON.stringify(put.body).includes('capapi-secret'), 'the secret is not in the answer')
  const [row] = await app.services.db.sql<{ client_secret: string }>(`select client_secret from sso_settings where account_id = ?`, [
    owner.accountId,
  ])
  t.notOk(row!.client_secret.includes('capapi-secret'), 'and is sealed at rest')
  t.equal(app.services.secrets.open(row!.client_secret), 'capapi-secret')
  const other = await app.customer(0)
  const clash = await app.call('/v1/sso', { key: other.key, method: 'PUT', body: settings })
  t.equal(clash.status, 400, 'another account cannot claim the same domain')
  const audited = (await auditEntries(app, owner.accountId)).filter((e) => e.action === 'sso.updated')
  t.equal(audited.length, 1, 'one audit entry for the one change')
  t.notOk(JSON.stringify(audited[0]!.details).includes('capapi-secret'), 'the audit entry holds no secret')
})

t.test('a sign-in through the provider creates a member with the default role, confined to the account', async (t) => {
  const browser = new WebClient(app)
  const before = { trips: app.services.db.roundTrips(), provider: idp.requests.length }
  const { callbackUrl, browserTrips } = await throughProvider(browser, 'dev@corp.test')
  const serverSide = idp.requests.slice(before.provider).filter((p) => !/^\/(auth|interaction)/.test(p))
  const dbAtCallback = app.services.db.roundTrips()
  const providerAtCallback = idp.requests.length
  const res = await browser.request(callbackUrl)
  t.equal(res.status, 302, res.text.slice(0, 300))
  t.equal(res.headers.get('location'), '/dashboard')
  const callbackToProvider = idp.requests.slice(providerAtCallback)
  const dbTrips = app.services.db.roundTrips() - dbAtCallback
  const home = await browser.get('/dashboard')
  t.equal(home.status, 200, 'signed in')
  t.match(home.text, /dev@corp\.test/)
  t.match(home.text, /data-testid="role">developer</, 'with the default role')
  const [member] = await app.services.db.sql(`select role from members where account_id = ? and email = ?`, [
    owner.accountId,
    'dev@corp.test',
  ])
  t.equal(member!.role, 'developer')
  const entries = await auditEntries(app, owner.accountId)
  t.match(entries.at(-2), {
    action: 'member.added',
    target_type: 'member',
    details: { email: 'dev@corp.test', role: 'developer', via: 'sso' },
  })
  t.match(entries.at(-1), { action: 'member.signed_in', actor_type: 'member', actor_email: 'dev@corp.test', details: { method: 'sso' } })
  t.ok(entries.at(-1)!.request_id?.startsWith('req_'), 'with the callback’s request id')
  t.equal((await browser.get('/dashboard/team')).status, 403, 'a developer does not see the team page')
  t.comment(
    `SSO sign-in round trips: browser ${browserTrips + 2} (start, provider authorize + login + consent, callback, dashboard); ` +
      `service → provider before the callback ${serverSide.length} [${serverSide.join(' ')}], at the callback ${callbackToProvider.length} [${callbackToProvider.join(' ')}]; ` +
      `database at the callback ${dbTrips}`,
  )
  // The first callback after setup also fetches the provider's keys; discovery was read when the settings were saved.
  t.same(callbackToProvider, ['/token', '/jwks', '/me'], 'the callback: token, keys (once, then cached), userinfo')
})

t.test('forged and replayed answers are refused and audited', async (t) => {
  const cases: Array<[string, (c: Record<string, unknown>) => Record<string, unknown>, RegExp, boolean?]> = [
    ['forged signature', (c) => c, /OAUTH_INVALID_RESPONSE/, true],
    ['wrong audience', (c) => ({ ...c, aud: 'another-client' }), /aud/],
    ['expired token', (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }), /exp/],
    ['bad nonce', (c) => ({ ...c, nonce: 'not-the-one-sent' }), /nonce/],
    ['another issuer', (c) => ({ ...c, iss: 'https://evil.example' }), /iss/],
  ]
  for (const [what, forge, reason, stranger = false] of cases) {
    const browser = new WebClient(app)
    const { callbackUrl } = await throughProvider(browser, 'forged@corp.test')
    idp.forge = forge
    idp.strangerKey = stranger
    const res = await browser.request(callbackUrl).finally(() => {
      idp.forge = null
      idp.strangerKey = false
    })
    t.equal(res.status, 400, `${what}: refused`)
    t.equal((await browser.get('/dashboard')).status, 302, `${what}: not signed in`)
    const failure = await lastFailure()
    t.match(failure, { action: 'sign_in.failed', details: { method: 'sso' } }, `${what}: audited`)
    t.match(String(failure!.details.reason), reason, `${what}: the reason names the check (${String(failure!.details.reason)})`)
  }
  const [forgedMember] = await app.services.db.sql(`select 1 from members where email = 'forged@corp.test'`)
  t.notOk(forgedMember, 'no member was created by a refused answer')

  // A replayed callback: the same state and code a second time.
  const browser = new WebClient(app)
  const { callbackUrl } = await throughProvider(browser, 'replay@corp.test')
  // The same browser (its flow cookie as it was) sending the provider's answer a second time.
  const again = new WebClient(app)
  again.cookies = new Map(browser.cookies)
  t.equal((await browser.request(callbackUrl)).status, 302, 'the first use signs in')
  t.equal((await again.request(callbackUrl)).status, 400, 'the replay is refused')
  t.match(await lastFailure(), { details: { reason: 'replayed' } }, 'and audited as replayed')

  // A replayed code under a fresh state (an attacker's own flow): the provider refuses the code, PKCE would too.
  const attacker = new WebClient(app)
  const own = await throughProvider(attacker, 'attacker@corp.test')
  const stolen = new URL(callbackUrl).searchParams.get('code')!
  const swapped = new URL(own.callbackUrl)
  swapped.searchParams.set('code', stolen)
  t.equal((await attacker.request(swapped.href)).status, 400, 'a used code under another state is refused')
  t.match(await lastFailure(), { details: { reason: /invalid_grant/ } }, 'audited with the provider’s refusal')

  // The callback opened in another browser than the one that started the flow (login CSRF).
  const starter = new WebClient(app)
  const started = await throughProvider(starter, 'victim@corp.test')
  t.equal((await new WebClient(app).request(started.callbackUrl)).status, 400, 'another browser’s callback is refused')
  t.match(await lastFailure(), { details: { reason: 'browser_mismatch' } })
})

t.test('enforced: sign-in links are refused for the domain; its people go to the provider; link sessions end', async (t) => {
  const linkUser = new WebClient(app)
  await linkUser.get('/dashboard/login')
  mails.length = 0
  await linkUser.request('/dashboard/login', { form: { _csrf: linkUser.csrf, email: 'early@corp.test' } })
  const token = /token=([\w-]{43})/.exec(mails.join('\n'))![1]!
  t.equal((await sso({ ...settings, clientSecret: undefined, enforced: true })).status, 200, 'the stored secret is kept')
  mails.length = 0
  const browser = new WebClient(app)
  await browser.get('/dashboard/login')
  const res = await browser.request('/dashboard/login', { form: { _csrf: browser.csrf, email: 'someone@corp.test' } })
  t.equal(res.status, 303, 'no link: the browser goes to the provider')
  t.ok(res.headers.get('location')!.startsWith(idp.issuer))
  t.same(mails, [], 'no email was sent')
  await linkUser.get(`/dashboard/login/verify?token=${token}`)
  const late = await linkUser.request('/dashboard/login/verify', { form: { _csrf: linkUser.csrf, token } })
  t.equal(late.status, 400, 'a link sent before enforcement no longer signs in')
  t.match(await lastFailure(), { details: { reason: 'sso_enforced' } })
  const outsider = new WebClient(app)
  await outsider.get('/dashboard/login')
  mails.length = 0
  await outsider.request('/dashboard/login', { form: { _csrf: outsider.csrf, email: 'someone@elsewhere.test' } })
  t.equal(mails.length, 1, 'other domains still get links')
})
