// The SDK (sdk/dist, as a user imports it) on the event routes: endpoints, rotation, ping, the event log, alerts;
// verifyWebhook takes the new and the previous secret of a rotation and returns the typed event.
import t from 'tap'
import { Client, verifyWebhook, WebhookVerificationError, type AccountEvent } from '../../sdk/dist/index.js'
import { startTestApp } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'
import { waitFor, webhookReceiver } from '../helpers/webhook-receiver.ts'

t.test('SDK: endpoints, ping, rotation, the log, alerts; verifyWebhook across a rotation', async (t) => {
  const app = await startTestApp(t, {
    capabilities: [jobCapability],
    worker: true,
    config: { callbacksAllowPrivate: true, webhookRetryDelays: [0.2], webhookTimeoutMs: 1000 },
  })
  const c = await app.customer(100)
  const client = new Client({ apiKey: c.key, baseUrl: app.url })
  const hook = await webhookReceiver(t, app.contract)
  const created = await client.createWebhookEndpoint({ url: hook.url, events: ['ping', 'balance.*'] })
  t.match(created, { id: /^we_/, secret: /^whsec_/ })
  t.same(
    (await client.webhookEndpoints()).endpoints.map((e) => e.id),
    [created.id],
  )
  const { secret } = await client.rotateWebhookEndpointSecret(created.id)
  const { eventId } = await client.testWebhookEndpoint(created.id)
  const [hit] = await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  const event = await verifyWebhook<AccountEvent>(hit!.body, hit!.headers, [secret, created.secret])
  t.equal(event.type === 'ping' && event.data.endpointId, created.id, 'typed by its type')
  t.same(await verifyWebhook<AccountEvent>(hit!.body, hit!.headers, created.secret), event, 'the previous secret alone, within 24 h')
  await t.rejects(
    verifyWebhook(hit!.body, hit!.headers as Record<string, string>, ['whsec_' + Buffer.alloc(24).toString('base64')]),
    WebhookVerificationError,
  )
  const page = await client.events()
  t.same(
    page.events.map((e) => e.id),
    [eventId],
  )
  t.match(await client.getEvent(eventId), { id: eventId, deliveries: [{ endpointId: created.id }] })
  t.same(await client.putAlerts({ balanceThresholds: [10] }), { balanceThresholds: [10], keyBudgetPercents: [], email: false })
  t.same(await client.alerts(), { balanceThresholds: [10], keyBudgetPercents: [], email: false })
  t.equal(await client.deleteWebhookEndpoint(created.id), undefined)
})
