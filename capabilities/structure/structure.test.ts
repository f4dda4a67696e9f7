import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { limits } from './handler.ts'
import manifest from './manifest.ts'

// Every model call is recorded in cap.cap.prompts; the answers given to cap.reply() are served in turn (the last one repeats).
const cap = await capabilityHarness(t, manifest, { funds: 20 })
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
  cap.reply(env(good, ['company has no field', 'company has no field', ' ']))
  const call = await cap.call({ input, schema })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    data: good,
    valid: true,
    notes: ['company has no field'],
    usage: { credits: 6, balanceRemaining: 14, livemode: true },
  })
  t.equal(cap.prompts.length, 1)
  t.match(cap.prompts[0], '\\"deliverBy\\"', 'the model sees the schema')
})

t.test('an invalid first answer is retried once with the validation errors', async (t) => {
  cap.reply(env({ name: 'Dana', quantity: '40', deliverBy: 'March 3' }), env(good))
  const { res } = await cap.call({ input, schema })
  t.equal(res.status, 200, res.text)
  t.same(res.body.data, good)
  t.equal(res.body.valid, true)
  t.equal(cap.prompts.length, 2)
  t.match(cap.prompts[1], '/quantity: must be integer')
  t.match(cap.prompts[1], '/deliverBy: must match format')
})

t.test('invalid twice: 200, valid false, the errors in notes, charged', async (t) => {
  cap.reply(env({ name: 'Dana' }), env({ name: 'Dana', quantity: 0, extra: 1 }, ['unsure about quantity']))
  const call = await cap.call({ input, schema })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    data: { name: 'Dana', quantity: 0, extra: 1 },
    valid: false,
    notes: ['/extra: must NOT have additional properties', '/quantity: must be >= 1', 'unsure about quantity'],
    usage: { credits: 6, balanceRemaining: 14, livemode: true },
  })
})

t.test('not JSON at all: the parsed answer is kept; never JSON: data null', async (t) => {
  const c = await cap.customer()
  cap.reply(env({ name: 'Dana' }), env('{"name": "Dana", quantity: 40'))
  let res = await cap.post(c, { input, schema })
  t.equal(res.status, 200, res.text)
  t.same(res.body.data, { name: 'Dana' })
  t.equal(res.body.valid, false)
  t.same(res.body.notes, ["/quantity: must have required property 'quantity'"])

  cap.reply(env('not json'))
  res = await cap.post(c, { input, schema })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.data, null)
  t.equal(res.body.valid, false)
  t.match(res.body.notes[0], /not valid JSON/)
})

t.test('valid is computed by Ajv, for any JSON value and draft', async (t) => {
  const c = await cap.customer(40)
  cap.reply(env(['a', 1]))
  let res = await cap.post(c, {
    input: 'a, 1',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    },
  })
  t.equal(res.status, 200, res.text)
  t.same([res.body.data, res.body.valid], [['a', 1], true])

  cap.reply(env(42))
  res = await cap.post(c, { input: 'forty-two', schema: { $schema: 'http://json-schema.org/draft-07/schema', type: 'string' } })
  t.same([res.body.data, res.body.valid], [42, false])

  // Two callers may use the same $id with different schemas: nothing is registered between calls.
  cap.reply(env({ a: 1 }))
  res = await cap.post(c, { input: 'a=1', schema: { $id: 'https://example.com/s.json', type: 'object', required: ['a'] } })
  t.equal(res.body.valid, true)
  res = await cap.post(c, { input: 'a=1', schema: { $id: 'https://example.com/s.json', type: 'object', required: ['b'] } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, false)
})

t.test('patterns are validated off the main thread, with a deadline', async (t) => {
  const c = await cap.customer()
  cap.reply(env({ code: 'ABC' }))
  let res = await cap.post(c, {
    input: 'code abc',
    schema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } },
  })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, true)

  limits.patternValidationMs = 300
  t.teardown(() => {
    limits.patternValidationMs = 2000
  })
  cap.reply(env({ code: `${'a'.repeat(40)}!` })) // (a+)+$ on this backtracks for longer than anyone waits
  const evil = cap.post(c, { input: 'evil', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } } })
  await new Promise((r) => setTimeout(r, 300))
  const asked = Date.now()
  const health = await cap.app.call('/healthz')
  t.equal(health.status, 200)
  t.ok(Date.now() - asked < 1000, 'the process answers other requests meanwhile')
  res = await evil
  t.equal(res.status, 200, res.text)
  t.equal(res.body.valid, false)
  t.match(res.body.notes[0], /did not finish within 0.3 s/)
})

t.test('a bad schema is 400 invalid_request with details, free, and no model call', async (t) => {
  cap.reply(env({}))
  const deep: Record<string, unknown> = { type: 'object' }
  let node = deep
  for (let i = 0; i < 40; i++) node = (node.properties = { x: { type: 'object' } }).x
  const nested: Record<string, unknown> = { type: 'object' }
  node = nested
  for (let i = 0; i < 16; i++) node = (node.properties = { x: { type: 'object' } }).x // 33 levels
  const cases: Array<[string, unknown, string | RegExp, string?]> = [
    ['type typo', { type: 'strin' }, '/schema/type'],
    ['unknown keyword', { type: 'object', requird: ['a'] }, '/schema'],
    ['unknown format', { type: 'string', format: 'zipcode' }, '/schema'],
    ['remote $ref', { $ref: 'https://example.com/schema.json' }, '/schema'],
    ['unsupported draft', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, '/schema/$schema'],
    // Past the bounds that keep compiling cheap: refused before anything compiles it, with their own code.
    ['too large', { type: 'object', description: 'x'.repeat(100_001) }, '/schema', 'schema_too_complex'],
    ['nested 33 levels', nested, '/schema', 'schema_too_complex'],
    // Deeper than the kernel's 64 JSON levels: refused at stage 4, naming the first level too deep.
    ['too deep', deep, /^\/schema(\/properties\/x)+[/a-z]*…$/],
    ['bad regex', { type: 'string', pattern: '(' }, '/schema'],
  ]
  for (const [why, s, path, code] of cases) {
    const { res } = await cap.expectRefused(t, { input, schema: s }, { why, ...(code ? { code } : {}) })
    if (typeof path === 'string') t.equal(res.body.error.details?.[0]?.path, path, why)
    else t.match(res.body.error.details?.[0]?.path, path, why)
  }
  const shape: Array<[string, unknown]> = [
    ['schema not an object', { input, schema: ['type', 'object'] }],
    ['schema missing', { input }],
    ['101 top-level keywords', { input, schema: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 1])) }],
    ['empty input', { input: '', schema }],
    ['input too long', { input: 'x'.repeat(500_001), schema }],
    ['unknown property', { input, schema, strict: true }],
  ]
  for (const [why, body] of shape) await cap.expectRefused(t, body, { why })
  t.equal(cap.prompts.length, 0, 'the model was never called')
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: (req) => (req.system.includes('deliverBy') ? env(good, ['company left out']) : undefined) })
  const call = await cap.call({ input, schema }, { funds: 10 })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    data: good,
    valid: true,
    notes: ['company left out'],
    usage: { credits: 6, balanceRemaining: 4, livemode: true },
  })
})
