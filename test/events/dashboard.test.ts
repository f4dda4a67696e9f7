// The dashboard's event pages (C17): register an endpoint (its secret once), ping it, see the event with its
// attempts, resend it (same webhook-id), rotate, disable, delete; alert settings; a viewer reads without forms.
import t from 'tap'
import { startTestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { signedInMember } from '../helpers/teams.ts'
import { verifies, waitFor, webhookReceiver } from '../helpers/webhook-receiver.ts'

t.test('endpoints, events with attempts and resend, alerts: through the dashboard', async (t) => {
  const app = await startTestApp(t, {
    capabilities: [jobCapability],
    worker: true,
    config: { callbacksAllowPrivate: true, webhookRetryDelays: [0.2], webhookTimeoutMs: 1000 },
  })
  const c = await app.customer(100)
  const hook = await webhookReceiver(t, app.contract)
  const developer = await signedInMember(app, c.accountId, 'developer')
  const created = await developer.post('/dashboard/endpoints', { url: hook.url, events: 'ping, balance.*' })
  t.equal(created.status, 200)
  const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(created.text)?.[1]
  t.ok(secret, 'the secret is shown once, on the answer of the creation')
  const listed = await developer.get('/dashboard/endpoints')
  t.notOk(listed.text.includes(secret!), 'and never again')
  t.match(listed.text, /ping, balance\.\*/)
  const id = /data-endpoint="(we_[0-9a-f]+)"/.exec(listed.text)![1]!

  t.equal((await developer.post(`/dashboard/endpoints/${id}/test`, {})).status, 302)
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  t.same(verifies(secret!, hook.hits[0]!), hook.hits[0]!.event)
  const eventId = hook.hits[0]!.event.id
  const events = await developer.get('/dashboard/events')
  t.match(events.text, new RegExp(`href="/dashboard/events/${eventId}"`))
  const detail = await waitFor(
    () => developer.get(`/dashboard/events/${eventId}`),
    (r) => r.text.includes('data-status="delivered"'),
  )
  t.match(detail.text, /<td>1<\/td>\s*<td>[^<]+<\/td>\s*<td>200<\/td>/, 'the attempt with its status code')
  t.equal((await developer.post(`/dashboard/events/${eventId}/resend`, {})).status, 302)
  await waitFor(
    () => hook.hits,
    (h) => h.length >= 2,
  )
  t.equal(hook.hits[1]!.headers['webhook-id'], eventId, 'resent with the same webhook-id')

  const rotated = await developer.post(`/dashboard/endpoints/${id}/rotate`, {})
  const next = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(rotated.text)?.[1]
  t.ok(next && next !== secret, 'a new secret, shown once')
  t.equal((await developer.post(`/dashboard/endpoints/${id}/enabled`, { enabled: '0' })).status, 302)
  t.match((await developer.get('/dashboard/endpoints')).text, /disabled/)
  t.equal((await developer.post('/dashboard/alerts', { balanceThresholds: '10' })).status, 403, 'alerts are for billing roles')

  const billing = await signedInMember(app, c.accountId, 'billing')
  t.equal((await billing.post('/dashboard/alerts', { balanceThresholds: '500, 100', keyBudgetPercents: '90', email: '1' })).status, 302)
  t.same((await app.call('/v1/alerts', { key: c.key })).body, { balanceThresholds: [500, 100], keyBudgetPercents: [90], email: true })
  t.equal((await billing.post('/dashboard/alerts', { balanceThresholds: '-3' })).status, 400, 'a bad number is refused')
  t.equal((await billing.get('/dashboard/endpoints')).status, 403, 'billing does not manage endpoints')

  const viewer = await signedInMember(app, c.accountId, 'viewer')
  const viewed = await viewer.get(`/dashboard/events/${eventId}`)
  t.equal(viewed.status, 200)
  t.notOk(viewed.text.includes('/resend'), 'a viewer sees no resend button')
  t.equal((await developer.post(`/dashboard/endpoints/${id}/delete`, {})).status, 302)
  t.notOk((await developer.get('/dashboard/endpoints')).text.includes(id))
  t.equal((await developer.get('/dashboard/events/evt_nope')).status, 404)
  t.same(hook.invalid, [])
})
