import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { limits } from './handler.ts'

// Every model call is recorded; `answers` are served in turn (the last one repeats).
let answers: unknown[] = []
let prompts: string[] = []
const answer = (...list: unknown[]) => {
  answers = list
  prompts = []
}
const app = await startTestApp(t, {
  provider: mockProvider((p) => {
    prompts.push(p)
    return answers.length > 1 ? answers.shift() : answers[0]
  }),
})
const env = (data: unknown, notes: string[] = []) => ({ json: typeof data === 'string' ? data : JSON.stringify(data), notes })

const input = 'hi, this is Dana Reyes from Northwind, need 40 chairs by march 3rd 2026'
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    quantity: { type: 'integer', minimum: 1 },
    deliverBy: { type: 'string', format: 'date' },
  },
  required: ['name', 'quantity'],
  additionalProperties: false,
}
const good = { name: 'Dana Reyes', quantity: 40, deliverBy: '2026-03-03' }

t.test('valid on the first answer', async (t) => {
  const c = await app.customer(20)
  answer(env(good, ['company has no field', 'company has no field', ' ']))
  const res = await app.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { data: good, valid: true, notes: ['company has no field'], usage: { credits: 6, balanceRemaining: 14 } })
  t.equal(prompts.length, 1)
  t.match(prompts[0], '\\"deliverBy\\"', 'the model sees the schema')
})

t.test('an invalid first answer is retried once with the validation errors', async (t) => {
  const c = await app.customer(20)
  answer(env({ name: 'Dana', quantity: '40', deliverBy: 'March 3' }), env(good))
  const res = await app.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.data, good)
  t.equal(res.body.valid, true)
  t.equal(prompts.length, 2)
  t.match(prompts[1], '/quantity: must be integer')
  t.match(prompts[1], '/deliverBy: must match format')
})

t.test('invalid twice: 200, valid false, the errors in notes, charged', async (t) => {
  const c = await app.customer(20)
  answer(env({ name: 'Dana' }), env({ name: 'Dana', quantity: 0, extra: 1 }, ['unsure about quantity']))
  const res = await app.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    data: { name: 'Dana', quantity: 0, extra: 1 },
    valid: false,
    notes: ['/extra: must NOT have additional properties', '/quantity: must be >= 1', 'unsure about quantity'],
    usage: { credits: 6, balanceRemaining: 14 },
  })
  t.same(await app.ledger(c.accountId), { balance: 14, reserved: 0, ledgerSum: 14 })
})

t.test('not JSON at all: the parsed answer is kept; never JSON: data null', async (t) => {
  const c = await app.customer(20)
  answer(env({ name: 'Dana' }), env('{"name": "Dana", quantity: 40'))
  let res = await app.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.data, { name: 'Dana' })
  t.equal(res.body.valid, false)
  t.same(res.body.notes, ['/quantity: must have required property \'quantity\''])

  answer(env('not json'))
  res = await app.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.data, null)
  t.equal(res.body.valid, false)
  t.match(res.body.notes[0], /not valid JSON/)
})

t.test('valid is computed by Ajv, for any JSON value and draft', async (t) => {
  const c = await app.customer(40)
  answer(env(['a', 1]))
  let res = await app.call('/v1/structure', {
    key: c.key,
    body: { input: 'a, 1', schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } },
  })
  t.equal(res.status, 200, res.text)
  t.same([res.body.data, res.body.valid], [['a', 1], true])

  answer(env(42))
  res = await app.call('/v1/structure', { key: c.key, body: { input: 'forty-two', schema: { $schema: 'http://json-schema.org/draft-07/schema', type: 'string' } } })
  t.same([res.body.data, res.body.valid], [42, false])

  // Two callers may use the same $id with different schemas: nothing is registered between calls.
  answer(env({ a: 1 }))
  res = await app.call('/v1/structure', { key: c.key, body: { input: 'a=1', schema: { $id: 'https://example.com/s.json', type: 'object', required: ['a'] } } })
  t.equal(res.body.valid, true)
  res = await app.call('/v1/structure', { key: c.key, body: { input: 'a=1', schema: { $id: 'https://example.com/s.json', type: 'object', required: ['b'] } } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, false)
})

t.test('patterns are validated off the main thread, with a deadline', async (t) => {
  const c = await app.customer(20)
  answer(env({ code: 'ABC' }))
  let res = await app.call('/v1/structure', { key: c.key, body: { input: 'code abc', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } } } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, true)

  limits.patternValidationMs = 300
  t.teardown(() => {
    limits.patternValidationMs = 2000
  })
  answer(env({ code: `${'a'.repeat(40)}!` })) // (a+)+$ on this backtracks for longer than anyone waits
  const evil = app.call('/v1/structure', { key: c.key, body: { input: 'evil', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } } } })
  await new Promise((r) => setTimeout(r, 300))
  const asked = Date.now()
  const health = await app.call('/healthz')
  t.equal(health.status, 200)
  t.ok(Date.now() - asked < 1000, 'the process answers other requests meanwhile')
  res = await evil
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, false)
  t.match(res.body.notes[0], /did not finish within 0.3 s/)
})

t.test('a bad schema is 400 invalid_request with details, free, and no model call', async (t) => {
  const c = await app.customer(20)
  answer(env({}))
  const deep: Record<string, unknown> = { type: 'object' }
  let node = deep
  for (let i = 0; i < 40; i++) node = (node.properties = { x: { type: 'object' } }).x as Record<string, unknown>
  const cases: Array<[string, unknown, string]> = [
    ['type typo', { type: 'strin' }, '/schema/type'],
    ['unknown keyword', { type: 'object', requird: ['a'] }, '/schema'],
    ['unknown format', { type: 'string', format: 'zipcode' }, '/schema'],
    ['remote $ref', { $ref: 'https://example.com/schema.json' }, '/schema'],
    ['unsupported draft', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, '/schema/$schema'],
    ['too large', { type: 'object', description: 'x'.repeat(100_001) }, '/schema'],
    ['too deep', deep, '/schema'],
    ['bad regex', { type: 'string', pattern: '(' }, '/schema'],
  ]
  for (const [name, s, path] of cases) {
    const res = await app.call('/v1/structure', { key: c.key, body: { input, schema: s } })
    t.equal(res.status, 400, `${name}: ${res.text}`)
    t.equal(res.body.error.code, 'invalid_request', name)
    t.equal(res.body.error.details?.[0]?.path, path, name)
  }
  const shape: Array<[string, unknown]> = [
    ['schema not an object', { input, schema: ['type', 'object'] }],
    ['schema missing', { input }],
    ['101 top-level keywords', { input, schema: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 1])) }],
    ['empty input', { input: '', schema }],
    ['input too long', { input: 'x'.repeat(500_001), schema }],
    ['unknown property', { input, schema, strict: true }],
  ]
  for (const [name, body] of shape) {
    const res = await app.call('/v1/structure', { key: c.key, body })
    t.equal(res.status, 400, name)
    t.equal(res.body.error.code, 'invalid_request', name)
  }
  t.equal(prompts.length, 0, 'the model was never called')
  t.same(await app.ledger(c.accountId), { balance: 20, reserved: 0, ledgerSum: 20 })
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await startFakeOpenAI({ text: (req) => (req.system.includes('deliverBy') ? env(good, ['company left out']) : undefined) })
  t.teardown(() => fake.close())
  const served = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL) })
  const c = await served.customer(10)
  const res = await served.call('/v1/structure', { key: c.key, body: { input, schema } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { data: good, valid: true, notes: ['company left out'], usage: { credits: 6, balanceRemaining: 4 } })
  t.same(await served.ledger(c.accountId), { balance: 4, reserved: 0, ledgerSum: 4 })
})
