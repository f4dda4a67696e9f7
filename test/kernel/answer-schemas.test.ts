// Issue 15 in the kernel: the strict form of an answer schema, null mapped back to "absent", answer checks
// that get the corrective retry like schema errors, and prose cut at a boundary — on both wire APIs.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { cutProse, NonBlank, perShape } from '../../core/models/answers.ts'
import { sameSchema } from '../../core/models/generate.ts'
import { nullsToAbsent, strictSchema } from '../../core/models/strict.ts'
import { ajv } from '../../core/validation.ts'
import { fakeServerProvider, startTestApp, testCapability } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

const Answer = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 40 }),
    note: Type.Optional(Type.String({ maxLength: 100 })),
    tags: Type.Array(Type.String({ format: 'uri-reference' }), { maxItems: 3, uniqueItems: true }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { additionalProperties: false },
)

t.test('the strict form: every property required, optional ones nullable, refused keywords described', async (t) => {
  const strict = strictSchema(Answer) as any
  t.same(strict.required, ['title', 'note', 'tags', 'score'])
  t.equal(strict.additionalProperties, false)
  t.same(strict.properties.note.type, ['string', 'null'], 'optional → nullable')
  t.equal(strict.properties.title.pattern, '^[\\s\\S]{1,40}$', 'length bounds as a pattern the decoder obeys')
  t.notOk('minLength' in strict.properties.title)
  t.match(strict.properties.tags.description, /uniqueItems true/, 'a refused keyword is moved into the description')
  t.match(strict.properties.tags.items.description, /format uri-reference/, 'a format strict mode lacks is described')
  t.same([strict.properties.score.minimum, strict.properties.score.maximum], [0, 1], 'number bounds are kept')
  t.ok(ajv.validate(strict, { title: 'x', note: null, tags: [], score: 0 }), 'the strict form is valid JSON Schema')
  t.equal(strictSchema(Type.Object({ fields: Type.Record(Type.String(), Type.String()) })), null, 'an open object has no strict form')
  t.equal(strictSchema(Type.Object({ any: Type.Unknown() })), null, 'nor has an unconstrained value')
})

t.test('null stands for an absent optional property, never for a required nullable one', async (t) => {
  const schema = Type.Object({
    a: Type.Optional(Type.String()),
    b: Type.Union([Type.String(), Type.Null()]),
    list: Type.Array(Type.Object({ c: Type.Optional(Type.Number()) })),
  })
  t.same(nullsToAbsent({ a: null, b: null, list: [{ c: null }, { c: 1 }] }, schema), { b: null, list: [{}, { c: 1 }] })
})

t.test('prose is cut at a sentence, else a word boundary, with a warning', async (t) => {
  const warnings: string[] = []
  t.equal(cutProse('Short.', 10, 'note', warnings), 'Short.')
  t.same(warnings, [])
  t.equal(cutProse('First sentence here. Second sentence runs on and on.', 30, 'note', warnings), 'First sentence here.')
  t.equal(cutProse('one two three four five six seven', 20, 'note', warnings), 'one two three four…')
  t.equal(warnings.length, 2)
  t.match(warnings[0], /note was longer than 30 characters/)
})

for (const wire of ['responses', 'chat'] as const) {
  t.test(`${wire}: strict on the wire, answer checks get the corrective retry`, async (t) => {
    let replies: unknown[] = []
    const fake = await startFakeOpenAI({ text: () => replies.shift() })
    t.teardown(() => fake.close())
    const cap = testCapability({
      name: 'checked',
      price: 2,
      response: Type.Object({ title: Type.String(), note: Type.Optional(Type.String()) }, { additionalProperties: false }),
      handler: async (input: any, ctx) =>
        ctx.ai.object({
          system: 'Title it.',
          content: input.text,
          schema: Type.Object({ title: NonBlank({ maxLength: 40 }), note: Type.Optional(Type.String()) }, { additionalProperties: false }),
          check: (a: { title: string }) => (a.title.includes(input.text) ? [] : [`/title: must contain "${input.text}"`]),
        }),
    })
    const app = await startTestApp(t, { capabilities: [cap], provider: fakeServerProvider(fake.baseURL, wire) })

    const c = await app.customer(10)
    replies = [
      { title: 'Nothing', note: null },
      { title: 'About kiwi', note: null },
    ]
    const before = fake.requests.length
    const ok = await app.call('/v1/checked', { body: { text: 'kiwi' }, key: c.key })
    t.equal(ok.status, 200, ok.text)
    t.same(ok.body, { title: 'About kiwi', usage: { credits: 2, balanceRemaining: 8, livemode: true } }, 'null note left out')
    const [first, retry] = fake.requests.slice(before).map((r) => r.body)
    const format = wire === 'responses' ? first.text.format : first.response_format.json_schema
    t.equal(format.strict, true, 'strict: true on the wire')
    t.same(format.schema.required, ['title', 'note'])
    t.match(JSON.stringify(retry), /must contain \\"kiwi\\"/, 'the problem goes back to the model')

    replies = [
      { title: 'Nothing', note: null },
      { title: 'Still nothing', note: null },
    ]
    const refused = await app.call('/v1/checked', { body: { text: 'kiwi' }, key: c.key })
    t.equal(refused.status, 502)
    t.equal(refused.body.error.code, 'inference_failed')
    t.match(refused.body.error.message, /broke a rule of this endpoint after a corrective retry: \/title: must contain "kiwi"/)
    t.same(await app.ledger(c.accountId), { balance: 8, reserved: 0, ledgerSum: 8 }, 'the refused call is free')
  })
}

t.test('a schema built per call: one object per shape, a new shape its own, the least recently used forgotten', async (t) => {
  let builds = 0
  const build = perShape((labels: string[]) => {
    builds++
    return Type.Object({ label: Type.Unsafe<string>({ type: 'string', enum: labels }) })
  }, 2)
  const a = build(['a', 'b'])
  t.equal(build(['a', 'b']), a, 'the same labels again: the same schema, not built again')
  t.not(build(['a', 'c']), a, 'other labels: their own schema')
  build(['a', 'b']) // used last, so ['a', 'c'] is the one forgotten below
  build(['x', 'y'])
  t.equal(builds, 3)
  t.equal(build(['a', 'b']), a, 'kept: used more recently')
  build(['a', 'c'])
  t.equal(builds, 4, 'forgotten, so built again')

  const first = Type.Object({ n: Type.Number({ maximum: 3 }) })
  t.equal(sameSchema(first), first)
  t.equal(sameSchema(Type.Object({ n: Type.Number({ maximum: 3 }) })), first, 'an equal schema built again stands for the first')
  const other = Type.Object({ n: Type.Number({ maximum: 4 }) })
  t.equal(sameSchema(other), other, 'a different one stands for itself')
})

t.test('AI_STRICT_SCHEMAS=false sends the full schema non-strict', async (t) => {
  const fake = await startFakeOpenAI({ text: () => ({ title: 'x' }) })
  t.teardown(() => fake.close())
  const cap = testCapability({
    name: 'loose',
    response: Type.Object({ title: Type.String({ minLength: 1, maxLength: 40 }) }, { additionalProperties: false }),
    handler: async (input: any, ctx) => ctx.ai.object({ system: 'x', content: input.text }),
  })
  const app = await startTestApp(t, { capabilities: [cap], provider: { ...fakeServerProvider(fake.baseURL), strictSchemas: false } })
  const c = await app.customer(10)
  t.equal((await app.call('/v1/loose', { body: { text: 'a' }, key: c.key })).status, 200)
  const format = fake.requests.at(-1)!.body.text.format
  t.equal(format.strict, false)
  t.equal(format.schema.properties.title.maxLength, 40)
})
