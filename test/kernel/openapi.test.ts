// C14: the OpenAPI document is built at boot from the manifests.
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Type } from '@sinclair/typebox'
import { EXPLICIT_NULL } from '../../core/run/result.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

const served = testCapability({
  name: 'served',
  price: 4,
  ratePerMinute: 30,
  async: true,
  example: { request: { text: 'hi' }, response: { echo: 'hi' } },
})
const resting = testCapability({ name: 'resting', price: 2 })

t.test('every capability with its schemas, price, async flag, limit and paused state', async (t) => {
  const app = await startTestApp(t, {
    capabilities: [served, resting],
    config: { paused: { resting: { since: '2026-08-19', reason: 'Resting.' } }, rateLimits: { served: 45 } },
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
  const sync = doc.paths['/v1/resting'].post.requestBody.content['application/json'].schema
  t.same(
    ['async', 'callbackUrl'].filter((k) => k in sync.properties),
    [],
    'but not on an endpoint that runs no job (the server refuses async: true there)',
  )
  t.notOk(doc.paths['/v1/resting'].post.responses['202'], 'nor its 202')
  t.match(doc.paths['/v1/resting'].post, { 'x-available': false, 'x-unavailable-reason': /^paused: Resting\./ }, 'paused: unavailable')
  t.match(op, { 'x-available': true }, 'served: available')
  t.notOk('x-unavailable-reason' in op)
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
  ajv.addSchema({ $id: 'doc', components: doc.components })
  t.doesNotThrow(() => ajv.compile(op.requestBody.content['application/json'].schema))
})

t.test('every published example validates against its published schema, usage included (issue 14)', async (t) => {
  const app = await startTestApp(t)
  const { doc } = app.contract
  let examples = 0
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    const op = item.post
    if (!op?.tags?.includes('capabilities')) continue
    const request = app.contract.requestSchema(path)
    const example = op.requestBody.content['application/json'].example
    if (example !== undefined) t.ok(request(example), `${path} request example: ${JSON.stringify(request.errors)}`)
    const response = op.responses['200'].content['application/json']
    const validate = app.contract.responseSchema('post', path, 200)!
    t.ok(validate(response.example), `${path} response example: ${JSON.stringify(validate.errors)}`)
    t.ok(response.example.usage, `${path}: the example shows usage`)
    if (!JSON.stringify(response.schema).includes(EXPLICIT_NULL))
      t.notOk(JSON.stringify(response.example).includes(':null'), `${path}: no unknown value as null`)
    examples++
  }
  t.equal(examples, capabilityFolders(CAPABILITIES_ROOT).length)
})

t.test('a 200 that drifts from the published document fails the test that receives it', async (t) => {
  const app = await startTestApp(t, { capabilities: [served] })
  const ok = { echo: 'hi', usage: { credits: 4, balanceRemaining: 1, livemode: true } }
  const headers = new Headers({ 'x-request-id': 'req_1' })
  t.doesNotThrow(() => app.contract.check('POST', '/v1/served', 200, headers, JSON.stringify(ok)))
  t.throws(
    () => app.contract.check('POST', '/v1/served', 200, headers, JSON.stringify({ echo: 'hi' })),
    /must have required property 'usage'/,
  )
  t.throws(() => app.contract.check('POST', '/v1/served', 200, headers, JSON.stringify({ ...ok, extra: 1 })), /additional properties/)
  t.throws(() => app.contract.check('POST', '/v1/served', 200, new Headers(), JSON.stringify(ok)), /X-Request-Id is missing/)
  t.throws(() => app.contract.check('GET', '/v1/undocumented', 200, headers, '{}'), /does not describe/)
})

t.test('nullable result properties are published optional without null; the kernel leaves unknowns out', async (t) => {
  const withUnknowns = testCapability({
    name: 'unknowns',
    response: Type.Object(
      {
        known: Type.String({ maxLength: 10 }),
        unknown: Type.Union([Type.String({ maxLength: 10 }), Type.Null()]),
        rows: Type.Array(Type.Object({ v: Type.Union([Type.Number(), Type.Null()]) }, { additionalProperties: false }), { maxItems: 5 }),
        answer: Type.Union([Type.String({ maxLength: 10 }), Type.Null()], { [EXPLICIT_NULL]: true }),
      },
      { additionalProperties: false },
    ),
    handler: async () => ({ known: 'k', unknown: null, rows: [{ v: null }, { v: 1 }], answer: null }),
  })
  const app = await startTestApp(t, { capabilities: [withUnknowns] })
  const schema = app.contract.doc.paths['/v1/unknowns'].post.responses['200'].content['application/json'].schema.anyOf[0]
  t.same(schema.required, ['known', 'rows', 'answer', 'usage'])
  t.same(schema.properties.unknown, { maxLength: 10, type: 'string' })
  const c = await app.customer(10)
  const res = await app.call('/v1/unknowns', { body: { text: 'x' }, key: c.key })
  t.equal(res.status, 200)
  t.same(res.body, { known: 'k', rows: [{}, { v: 1 }], answer: null, usage: { credits: 5, balanceRemaining: 5, livemode: true } })
})

t.test('the shipped config pauses /v1/transcribe and says why (C10)', async (t) => {
  const app = await startTestApp(t)
  const doc = (await app.call('/v1/openapi.json')).body
  const priced = Object.keys(doc.paths).filter((p) => doc.paths[p].post?.['x-price'] !== undefined)
  t.same(
    priced.sort(),
    capabilityFolders(CAPABILITIES_ROOT).map((name) => `/v1/${name}`),
    'every capability folder is a priced operation',
  )
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

t.test('lists say how they page; integers are integers; a 502 may say when to retry', async (t) => {
  const app = await startTestApp(t, { capabilities: [served] })
  const { doc } = app.contract
  for (const [path, items] of [
    ['/v1/jobs', 'jobs'],
    ['/v1/requests', 'requests'],
    ['/v1/usage', 'entries'],
  ] as const) {
    const op = doc.paths[path].get
    t.same(op['x-pagination'], { cursor: 'cursor', nextCursor: 'nextCursor', items }, `${path} pages through ${items}`)
    const limit = op.parameters.find((p: { name: string }) => p.name === 'limit').schema
    t.match(limit, { type: 'integer', minimum: 1, maximum: Number }, `${path}: limit is an integer with its bounds`)
  }
  t.notOk(doc.paths['/v1/jobs/{id}'].get['x-pagination'], 'a single job is no list')
  t.ok(doc.paths['/v1/served'].post.responses['502'].headers['Retry-After'], 'a 502 documents Retry-After')
})

t.test('an export publishes CSV, and JSON lines when it offers them; a JSON-lines route its line schema', async (t) => {
  const app = await startTestApp(t, { capabilities: [served] })
  const { doc } = app.contract
  const content = (path: string) => doc.paths[path].get.responses['200'].content
  const text = { schema: { type: 'string' } }
  t.same(content('/v1/usage/export'), { 'text/csv': text, 'application/x-ndjson': text }, 'CSV or untyped JSON lines')
  t.same(content('/v1/audit-log/export'), { 'text/csv': text }, 'CSV only')
  t.same(
    content('/v1/batches/{id}/results'),
    { 'application/x-ndjson': { schema: { $ref: '#/components/schemas/BatchResultLine' } } },
    'JSON lines only, each line a BatchResultLine',
  )
  t.equal(doc.paths['/v1/batches/{id}/results'].get.responses['200'].description, 'JSON Lines, one BatchResultLine a line')
})
