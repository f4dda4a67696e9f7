// C17: the alert is written in the charge's own transaction, so an API process killed with SIGKILL right after the
// crossing loses nothing: the worker, a separate process, delivers the event, once by webhook-id.
import t from 'tap'
import { startTestApp } from '../helpers/app.ts'
import { createTestDatabase } from '../../devkit/database.ts'
import { twoCreditCapability } from '../helpers/job-capabilities.ts'
import { spawnApi } from '../helpers/spawn-api.ts'
import { spawnWorker } from '../helpers/spawn-worker.ts'
import { verifies, waitFor, webhookReceiver } from '../helpers/webhook-receiver.ts'

t.test('API and worker as separate processes, the API SIGKILLed right after the crossing: balance.low delivered once', async (t) => {
  const database = await createTestDatabase()
  t.teardown(() => database.drop())
  const env = { CALLBACKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' }
  // In this process: the setup only (no worker), through the same published API.
  const setup = await startTestApp(t, {
    databaseUrl: database.url,
    capabilities: [twoCreditCapability],
    config: { callbacksAllowPrivate: true },
  })
  const c = await setup.customer(100)
  const hook = await webhookReceiver(t, setup.contract)
  const { secret } = (await setup.call('/v1/webhook-endpoints', { key: c.key, body: { url: hook.url, events: ['balance.*'] } })).body
  t.equal((await setup.call('/v1/alerts', { method: 'PUT', key: c.key, body: { balanceThresholds: [50] } })).status, 200)

  const api = await spawnApi(t, database.url, { env })
  await spawnWorker(t, database.url, env)
  const call = () =>
    fetch(`${api.url}/v1/charge2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x' }),
    }).then((r) => r.json() as Promise<{ usage: { balanceRemaining: number } }>)
  // 25 concurrent calls take 100 to 50; the 26th crosses (48), and the API dies the moment it answers.
  await Promise.all(Array.from({ length: 25 }, call))
  const crossing = await call()
  api.child.kill('SIGKILL')
  t.equal(crossing.usage.balanceRemaining, 48)

  const hits = await waitFor(
    () => hook.hits,
    (h) => h.length >= 1,
  )
  await new Promise((r) => setTimeout(r, 1500)) // a second delivery would come within this
  t.equal(hits.length, 1, 'delivered once')
  t.match(hits[0]!.event, { type: 'balance.low', livemode: true, data: { threshold: 50, available: 48 } })
  t.same(verifies(secret, hits[0]!), hits[0]!.event)
  t.equal(new Set(hook.hits.map((h) => h.headers['webhook-id'])).size, 1, 'one webhook-id')
  t.same(hook.invalid, [])
})
