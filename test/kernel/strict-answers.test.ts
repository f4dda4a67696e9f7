// Issue 29: a schema-obedient model is never refused for a rule the schema sent could have carried. The fake
// OpenAI-compatible server answers every structured-output request with seeded random instances of the schema
// exactly as sent (strict, on both wires), for every capability's example and for the requests that build their
// answer schema from the call (rewrite's length and phrases). An answer may still be refused by a rule JSON
// Schema cannot state (the answer check, after the corrective retry, named in the README's Rules), never
// because it "does not match the response schema": that would be a bound strict mode dropped into a description.
import t from 'tap'
import type { ModelProvider } from '../../core/models/provider.ts'
import { strictSchema } from '../../core/models/strict.ts'
import { ajv } from '../../core/validation.ts'
import { fakeServerProvider, startTestApp } from '../helpers/app.ts'
import { callToEnd, loadManifests, pool, requestOf } from '../helpers/examples.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import { seededAnswers } from '../../devkit/schema-instance.ts'

const CALLS = 6
const SCHEMA_REFUSAL = /does not match the response schema/
const text = 'Our new Falcon X2 blender crushes ice in seconds. Order today and get free shipping on every order over $50.'
/** Requests whose answer schema is built from the call, beyond the examples. */
const VARIANTS: Record<string, Array<Record<string, unknown>>> = {
  rewrite: [
    { text, length: 'shorter' },
    { text, length: 'same' },
    { text, length: 'longer' },
    { text, length: 'same', preserve: ['Falcon X2'] },
    { text, length: 'shorter', preserve: ['Falcon X2', '$50'] },
  ],
}

t.test('the strict form folds length bounds into the non-blank pattern', async (t) => {
  const strict = strictSchema({
    type: 'object',
    properties: {
      s: { type: 'string', pattern: '\\S', minLength: 22, maxLength: 62 },
      n: { type: 'string', pattern: '\\S', maxLength: 5 },
    },
    required: ['s', 'n'],
  }) as any
  t.equal(strict.properties.s.pattern, '^\\S[\\s\\S]{21,61}$')
  t.equal(strict.properties.n.pattern, '^\\S[\\s\\S]{0,4}$')
  t.notMatch(JSON.stringify(strict), /minLength|maxLength/, 'no bound left in a description')
  const full = ajv.compile({ type: 'string', pattern: '\\S', minLength: 22, maxLength: 62 })
  const folded = new RegExp(strict.properties.s.pattern, 'u')
  for (const s of ['a', ' '.repeat(30), 'a'.repeat(21), 'a'.repeat(22), 'a'.repeat(62), 'a'.repeat(63), `a${' '.repeat(40)}`])
    t.ok(!folded.test(s) || full(s), `${JSON.stringify(s.slice(0, 12))}…: what the pattern lets through is valid`)
})

const manifests = await loadManifests()
const fake = await startFakeOpenAI({ webSearch: [{ url: 'https://example.com/a', title: 'A' }] })
t.teardown(() => fake.close())
const answers = seededAnswers()
fake.set({ text: (req) => answers.answer(req) })
const app = await startTestApp(t, {
  worker: true,
  env: {
    PAUSED_ENDPOINTS: '{"transcribe": false}',
    RATE_LIMITS: JSON.stringify(Object.fromEntries(capabilityFolders(CAPABILITIES_ROOT).map((f) => [f, 100_000]))),
  },
})
const services = app.services as { provider: ModelProvider }

for (const wire of ['responses', 'chat'] as const) {
  t.test(`${wire} strict: no schema-obedient answer is refused by the schema`, async (t) => {
    services.provider = fakeServerProvider(fake.baseURL, wire, 'test-embedding')
    answers.clear()
    for (const m of manifests) {
      const requests = [requestOf(m), ...(VARIANTS[m.name] ?? [])]
      const customer = await app.customer(m.price * CALLS * requests.length)
      for (const body of requests) {
        const outcomes = await pool(CALLS, 6, () => callToEnd(app, m.name, customer.key, body))
        const refused = outcomes.filter((o) => SCHEMA_REFUSAL.test(o.message))
        t.same(
          refused.map((o) => o.message),
          [],
          `${m.name} ${JSON.stringify(body).slice(0, 80)}: ${outcomes.filter((o) => o.status === 200).length}/${CALLS} served`,
        )
      }
    }
  })
}
