import t from 'tap'
import { startTestApp, mockProvider } from '../helpers/app.ts'

t.test('a live classify call is charged once and answers with usage', async (t) => {
  const app = await startTestApp(t, { provider: mockProvider(() => ({ label: 'billing', confidence: 0.9, rationale: 'money' })) })
  const c = await app.customer(10)
  const res = await app.call('/v1/classify', { key: c.key, body: { text: 'charged twice', labels: ['billing', 'tech'] } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { label: 'billing', confidence: 0.9, rationale: 'money', usage: { credits: 2, balanceRemaining: 8 } })
})
