// C14: the OpenAPI document is built at boot from the manifests.
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { startTestApp, testCapability } from '../helpers/app.ts'

const served = testCapability({ name: 'served', price: 4, ratePerMinute: 30, async: true, example: { request: { text: 'hi' }, response: { echo: 'hi' } } })
const resting = testCapability({ name: 'resting', price: 2 })

t.test('every capability with its schemas, price, async flag, limit and paused state', async (t) => {
  const app = await startTestApp(t, {
    capabilities: [served, resting],
    config: { paused: { resting: { since: '2026-08-19', reason: 'Resting.' } } as never, rateLimits: { served: 45 } },
  })
  const res = await app.call('/v1/openapi.json')
  t.equal(res.status, 200)
  const doc = res.body
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.0.0')
  const op = doc.paths['/v1/served'].post
  t.match(op, { 'x-price': 4, 'x-async': true, 'x-rate-limit': 45, 'x-paused': false })
  t.same(op.requestBody.content['application/json'].example, { text: 'hi' })
  t.ok(op.requestBody.content['application/json'].schema.properties.callbackUrl, 'the kernel fields are published')
  t.ok(op.responses['202'], 'async endpoints document 202')
  t.ok(op.responses['402'] && op.responses['429'] && op.responses['503'])
  const paused = doc.paths['/v1/resting'].post
  t.equal(paused['x-paused'], true)
  t.match(paused['x-paused-reason'], /Resting/)
  t.ok(doc.paths['/v1/jobs/{id}'] && doc.paths['/v1/account'])
  t.ok(doc.webhooks.jobFinished)
  t.ok(doc.components.schemas.Error.properties.error.properties.code.enum.includes('idempotency_key_in_use'))
  // The document's schemas compile as JSON Schema 2020-12 (what OpenAPI 3.1 uses).
  const ajv = new Ajv2020({ strict: false })
  ajv.addSchema({ $id: 'doc', components: doc.components } as never)
  t.doesNotThrow(() => ajv.compile(op.requestBody.content['application/json'].schema))
})

t.test('the shipped config pauses /v1/transcribe and says why (C10)', async (t) => {
  const app = await startTestApp(t)
  const doc = (await app.call('/v1/openapi.json')).body
  t.equal(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/') && !['/v1/jobs/{id}', '/v1/account', '/v1/usage'].includes(p)).length, 39)
  const transcribe = doc.paths['/v1/transcribe'].post
  t.equal(transcribe['x-paused'], true)
  t.match(transcribe['x-paused-reason'], /no-training agreement/)
  const c = await app.customer(100)
  const res = await app.call('/v1/transcribe', { body: { audioUrl: 'https://example.com/a.mp3' }, key: c.key })
  t.equal(res.status, 503)
  t.equal(res.body.error.code, 'inference_unavailable')
  t.match(res.body.error.message, /no-training agreement/)
  t.equal((await app.ledger(c.accountId)).balance, 100)
})
