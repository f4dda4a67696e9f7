// The client address behind proxies (TRUST_PROXY_HOPS): the entry that many places from the right of
// X-Forwarded-For, the entries the trusted proxies appended. What a client writes in the header itself stays to
// their left, so it changes neither the failed-authentication limit nor the address the audit log records.
import t, { type Test } from 'tap'
import { BootRefusal, loadConfig } from '../../core/config.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'

const ADMIN = 'admin-token-for-client-address-tests'

t.test('TRUST_PROXY_HOPS, and TRUST_PROXY=true as one hop; nonsense refuses to boot naming the setting', async (t) => {
  const hops = (env: NodeJS.ProcessEnv) => loadConfig(env).proxyHops
  t.equal(hops({}), 0, 'unset: the connection’s own address')
  t.equal(hops({ TRUST_PROXY: 'false' }), 0)
  t.equal(hops({ TRUST_PROXY: 'true' }), 1, 'the older switch means one proxy')
  t.equal(hops({ TRUST_PROXY_HOPS: '2' }), 2)
  t.equal(hops({ TRUST_PROXY_HOPS: '0' }), 0)
  t.equal(hops({ TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '2' }), 2, 'both, agreeing: the number counts')
  for (const raw of ['-1', '1.5', 'true', 'two', ' 1', '100'])
    t.throws(() => hops({ TRUST_PROXY_HOPS: raw }), new BootRefusal(`TRUST_PROXY_HOPS must be the number of proxies`), raw)
  t.throws(() => hops({ TRUST_PROXY: 'yes' }), /TRUST_PROXY must be true or false, got "yes"; .*TRUST_PROXY_HOPS/)
  t.throws(() => hops({ TRUST_PROXY: 'false', TRUST_PROXY_HOPS: '1' }), /contradicts .*remove TRUST_PROXY/)
  t.throws(() => hops({ TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '0' }), /contradicts .*remove TRUST_PROXY/)
})

/** An app that throttles after 3 failed authentications per client address. */
const behind = (t: Test, proxyHops: number) =>
  startTestApp(t, { capabilities: [], config: { proxyHops, authFailuresPerMinute: 3, adminToken: ADMIN } })

const guess = (app: TestApp, forwardedFor?: string) =>
  app.call('/v1/account', { key: `ksk_live_guess${Math.random()}`, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} })

/** The address the audit log records for an operator's change made with this X-Forwarded-For. */
async function auditedAddress(t: Test, app: TestApp, forwardedFor: string): Promise<string> {
  const { accountId } = await app.customer(0)
  const headers = { authorization: `Bearer ${ADMIN}`, 'x-forwarded-for': forwardedFor }
  t.equal((await app.call(`/admin/accounts/${accountId}/keys`, { body: { name: 'audited' }, headers })).status, 201)
  const log = await app.call(`/admin/accounts/${accountId}/audit-log?action=key.created`, { headers })
  return log.body.entries[0].ip as string
}

t.test('one proxy: the rightmost entry is the client; a rotating spoofed prefix does not dodge the limit', async (t) => {
  const app = await behind(t, 1)
  const statuses = []
  for (let i = 0; i < 6; i++) statuses.push((await guess(app, `198.51.100.${i}, 203.0.113.7`)).status)
  t.same(statuses, [401, 401, 401, 429, 429, 429], 'the guesses of 203.0.113.7 are counted together')
  const bystander = await app.customer(0)
  t.equal(
    (await app.call('/v1/account', { key: bystander.key, headers: { 'x-forwarded-for': '203.0.113.8' } })).status,
    200,
    'another client keeps its own limit',
  )
  const fresh = await app.customer(0)
  t.equal(
    (await app.call('/v1/account', { key: fresh.key, headers: { 'x-forwarded-for': '203.0.113.8, 203.0.113.7' } })).status,
    429,
    'naming another client’s address on the left does not lift the throttle',
  )
  t.equal(await auditedAddress(t, app, '192.0.2.1, 203.0.113.9'), '203.0.113.9', 'the audit log records the appended address')
})

t.test('two proxies: the second entry from the right; entries the client wrote are never read', async (t) => {
  const app = await behind(t, 2)
  t.equal(await auditedAddress(t, app, '192.0.2.1, 203.0.113.9, 10.0.0.2'), '203.0.113.9')
  t.equal(await auditedAddress(t, app, '203.0.113.10, 10.0.0.2'), '203.0.113.10', 'no spoofed entry: the same')
  for (let i = 0; i < 3; i++) t.equal((await guess(app, `198.51.100.${i}, 203.0.113.7, 10.0.0.${i}`)).status, 401)
  t.equal((await guess(app, '203.0.113.7, 10.0.0.9')).status, 429, 'throttled by the address the outer proxy saw')
  t.equal((await guess(app, '203.0.113.7, 203.0.113.6, 10.0.0.9')).status, 401, 'another client, whatever it wrote before')
})

t.test('no proxy: X-Forwarded-For is ignored, the connection’s address counts', async (t) => {
  const app = await behind(t, 0)
  // The audited change first: once throttled, the connection's address is refused even the operator's token.
  t.equal(await auditedAddress(t, app, '203.0.113.9'), '127.0.0.1')
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push((await guess(app, `203.0.113.${i}`)).status)
  t.same(statuses, [401, 401, 401, 429])
})
