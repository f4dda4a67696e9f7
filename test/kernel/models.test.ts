// C11 through the real @ai-sdk/openai wire path against a fake OpenAI-compatible server: schema checks
// with one retry, provider failures, timeouts and client disconnects — all free.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { runModel } from '../../core/models/generate.ts'
import { fakeServerProvider, startTestApp, testCapability } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

const answer = testCapability({
  name: 'answer',
  price: 3,
  ratePerMinute: 1000,
  response: Type.Object(
    { answer: Type.String({ maxLength: 100 }), score: Type.Number({ minimum: 0, maximum: 1 }) },
    { additionalProperties: false },
  ),
  handler: async (input: any, ctx) => ctx.ai.object({ system: 'Answer.', content: input.text }),
})

for (const wire of ['responses', 'chat'] as const) {
  t.test(`${wire} wire API`, async (t) => {
    let replies: unknown[] = []
    const fake = await startFakeOpenAI({ text: () => replies.shift() })
    t.teardown(() => fake.close())
    const app = await startTestApp(t, {
      capabilities: [answer],
      provider: fakeServerProvider(fake.baseURL, wire),
      config: { syncModelTimeoutMs: 400 },
    })
    const call = (key: string) => app.call('/v1/answer', { body: { text: 'q' }, key })

    t.test('valid output: 200, charged', async (t) => {
      const c = await app.customer(10)
      replies = [{ answer: 'yes', score: 0.5 }]
      const res = await call(c.key)
      t.equal(res.status, 200)
      t.same(res.body, { answer: 'yes', score: 0.5, usage: { credits: 3, balanceRemaining: 7, livemode: true } })
      t.equal(fake.requests.at(-1)!.path, wire === 'responses' ? '/v1/responses' : '/v1/chat/completions')
    })

    t.test('output that fails the schema is retried once, with the errors', async (t) => {
      const c = await app.customer(10)
      const before = fake.requests.length
      replies = [
        { answer: 'yes', score: 7 },
        { answer: 'yes', score: 0.7 },
      ]
      const res = await call(c.key)
      t.equal(res.status, 200)
      t.equal(res.body.score, 0.7)
      t.equal(fake.requests.length - before, 2, 'two provider calls')
      t.match(JSON.stringify(fake.requests.at(-1)!.body), /score/, 'the retry tells the model what was wrong')
    })

    t.test('twice wrong: 502 inference_failed, free', async (t) => {
      const c = await app.customer(10)
      replies = [{ answer: 'yes' }, { $text: 'not json at all' }]
      const res = await call(c.key)
      t.equal(res.status, 502)
      t.equal(res.body.error.code, 'inference_failed')
      t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
    })

    t.test('a provider error is 502, free, and leaks nothing', async (t) => {
      const c = await app.customer(10)
      replies = [{ $status: 500, $body: { error: { message: 'db password is hunter2' } } }]
      const res = await call(c.key)
      t.equal(res.status, 502)
      t.notMatch(res.text, /hunter2/)
      t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
    })

    t.test('an answer with a prototype key is not JSON to us: retried as such', async (t) => {
      for (const key of ['__proto__', '\\u005f_proto__']) {
        const c = await app.customer(10)
        replies = [{ $text: `{"answer":"yes","score":0.5,"${key}":{"polluted":true}}` }, { answer: 'yes', score: 0.6 }]
        const res = await call(c.key)
        t.equal(res.status, 200, key)
        t.equal(res.body.score, 0.6)
        t.match(JSON.stringify(fake.requests.at(-1)!.body), /The answer was not valid JSON/)
        t.equal(({} as Record<string, unknown>).polluted, undefined)
      }
    })

    t.test('a provider that takes too long times out: 502, free', async (t) => {
      const c = await app.customer(10)
      fake.set({ delayMs: 2000 })
      replies = [{ answer: 'late', score: 1 }]
      const res = await call(c.key)
      fake.set({ delayMs: 0 })
      t.equal(res.status, 502)
      t.match(res.body.error.message, /timed out/)
      t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
    })
    // Last: the 429 opens this provider's breaker for the Retry-After it named.
    t.test("an upstream 429 is 502 with the provider's Retry-After, free; the provider is left alone until then", async (t) => {
      const c = await app.customer(10)
      replies = [{ $status: 429, $headers: { 'retry-after': '7' } }]
      const res = await call(c.key)
      t.equal(res.status, 502)
      t.equal(res.headers.get('retry-after'), '7')
      t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
      const before = fake.requests.length
      const again = await call(c.key)
      t.equal(again.status, 502)
      t.match(again.headers.get('retry-after'), /^[1-7]$/, "the time left of the provider's Retry-After")
      t.equal(fake.requests.length, before, 'the provider is not asked again before its Retry-After')
      t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
    })
  })
}

t.test('a client that disconnects cancels the provider call; nothing is charged', async (t) => {
  let aborted = false
  const fake = await startFakeOpenAI({ delayMs: 3000 })
  t.teardown(() => fake.close())
  const app = await startTestApp(t, {
    capabilities: [answer],
    provider: fakeServerProvider(fake.baseURL),
    config: { syncModelTimeoutMs: 10_000 },
  })
  const c = await app.customer(10)
  const controller = new AbortController()
  const pending = fetch(`${app.url}/v1/answer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'q' }),
    signal: controller.signal,
  }).catch(() => {
    aborted = true
  })
  await new Promise((r) => setTimeout(r, 300))
  t.equal((await app.ledger(c.accountId)).reserved, 3, 'the hold is placed while the model runs')
  controller.abort()
  await pending
  t.ok(aborted)
  for (let i = 0; i < 40 && (await app.ledger(c.accountId)).reserved > 0; i++) await new Promise((r) => setTimeout(r, 50))
  t.same(
    await app.ledger(c.accountId),
    { balance: 10, reserved: 0, ledgerSum: 10 },
    'released well before the provider would have answered',
  )
})

t.test('a finished model call leaves no timer behind (its deadline timer is cleared)', async (t) => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
  const before = timers()
  const calls = Array.from({ length: 50 }, (_, i) =>
    runModel('model', { signal: new AbortController().signal, timeoutMs: 60_000 }, async () => i),
  )
  t.equal(timers(), before + 50, 'one deadline timer per call in flight')
  t.same(
    await Promise.all(calls),
    Array.from({ length: 50 }, (_, i) => i),
  )
  t.equal(timers(), before, 'none left once they have finished')
})
