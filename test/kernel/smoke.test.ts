import t from 'tap'
import { startTestApp, fakeServerProvider } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

for (const wire of ['responses', 'chat'] as const) {
  t.test(`classify over the ${wire} wire API`, async (t) => {
    const fake = await startFakeOpenAI({ text: () => ({ label: 'billing', confidence: 0.9, rationale: 'money' }) })
    t.teardown(() => fake.close())
    const app = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL, wire) })
    const c = await app.customer(10)
    const res = await app.call('/v1/classify', { key: c.key, body: { text: 'charged twice', labels: ['billing', 'tech'] } })
    t.equal(res.status, 200, res.text)
    t.same(res.body.usage, { credits: 2, balanceRemaining: 8, livemode: true })
    t.equal(fake.requests[0]?.path, wire === 'responses' ? '/v1/responses' : '/v1/chat/completions')
  })
}
