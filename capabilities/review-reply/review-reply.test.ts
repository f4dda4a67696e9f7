import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/registry.ts'
import manifest from './manifest.ts'

// One app for the file: the text model is the ai SDK mock (answers from `answer`) unless `viaFake` is set,
// then the real @ai-sdk/openai client against the fake OpenAI-compatible server.
let answer: (prompt: string) => unknown = () => ({})
let viaFake = false
const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const mock = mockProvider((p) => answer(p))
const real = fakeServerProvider(fake.baseURL)
// Only this folder is served (checked exactly as the registry checks it at boot), so work in progress in
// other folders cannot break this file.
const app = await startTestApp(t, {
  capabilities: [checkManifest(manifest as unknown as CapabilityManifest, 'review-reply', 'capabilities/review-reply')],
  provider: { ...mock, language: () => (viaFake ? real : mock).language() },
})

const good = {
  reply: 'Thank you for the kind words about our staff; we are glad the room was spotless. See you next time!',
  sentiment: 'positive',
  issues: [],
  escalate: false,
  escalationReason: null,
}

async function call(body: unknown, credits = 10) {
  const c = await app.customer(credits)
  const res = await app.call('/v1/review-reply', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('sentiment that contradicts the stars becomes mixed', async (t) => {
  answer = () => ({ ...good, sentiment: 'negative', issues: ['slow check-in', 'Slow check-in ', ''] })
  const { res, ledger } = await call({ review: 'Lovely stay, check-in was slow though.', rating: 5 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.sentiment, 'mixed')
  t.same(res.body.issues, ['slow check-in'], 'issues trimmed, deduplicated, empty ones dropped')
  t.equal(res.body.escalate, false)
  t.notOk('escalationReasons' in res.body)
  t.same(res.body.usage, { credits: 3, balanceRemaining: 7 })
  t.equal(ledger.balance, 7)

  answer = () => ({ ...good, sentiment: 'positive' })
  const low = await call({ review: 'Nice people but the room smelled.', rating: 2 })
  t.equal(low.res.body.sentiment, 'mixed', 'a 2-star review is never "positive"')
})

t.test('a low rating with issues is escalated even when the model says no', async (t) => {
  answer = () => ({ ...good, sentiment: 'negative', issues: ['cold food', 'rude server'], escalate: false })
  const { res } = await call({ review: 'Cold food, rude server.', rating: 1 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.escalate, true)
  t.match(res.body.escalationReasons, [/Rating 1 of 5/])

  answer = () => ({ ...good, sentiment: 'negative', issues: [], escalate: false })
  const noIssues = await call({ review: 'Meh.', rating: 2 })
  t.equal(noIssues.res.body.escalate, false, 'no reported issue, no forced escalation')
})

t.test('legal, safety or health language is escalated whatever the rating', async (t) => {
  answer = () => ({ ...good, sentiment: 'mixed', issues: ['illness after meal'], escalate: false })
  const { res } = await call({ review: 'Great view, but I got food poisoning and my lawyer will hear about it.', rating: 4 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.escalate, true)
  t.match(res.body.escalationReasons.join(' '), /food poisoning/)
})

t.test("the model's own escalation is kept, with its reason", async (t) => {
  answer = () => ({ ...good, sentiment: 'negative', issues: ['overbooked'], escalate: true, escalationReason: 'Guest was turned away at midnight.' })
  const { res } = await call({ review: 'They gave away our room at midnight.' })
  t.equal(res.body.escalate, true)
  t.same(res.body.escalationReasons, ['Guest was turned away at midnight.'])
})

t.test('a reply with template placeholders or no text is a failed call, free', async (t) => {
  answer = () => ({ ...good, reply: 'Dear [Customer Name], thank you for your review!' })
  const { res, ledger } = await call({ review: 'Good.', rating: 5 })
  t.equal(res.status, 502)
  t.equal(res.body.error.code, 'inference_failed')
  t.same({ balance: ledger.balance, reserved: ledger.reserved }, { balance: 10, reserved: 0 })

  answer = () => ({ ...good, reply: '   ' })
  const empty = await call({ review: 'Good.' })
  t.equal(empty.res.status, 502)
  t.equal(empty.ledger.balance, 10)

  answer = () => ({ ...good, sentiment: 'ecstatic' })
  const bad = await call({ review: 'Good.' })
  t.equal(bad.res.status, 502, 'a sentiment outside the enum fails the schema after one retry')
  t.equal(bad.ledger.balance, 10)
})

t.test('bad input is 400 invalid_request and nothing is charged', async (t) => {
  answer = () => good
  for (const body of [
    {},
    { review: '' },
    { review: 'ok', rating: 0 },
    { review: 'ok', rating: 6 },
    { review: 'ok', rating: 4.5 },
    { review: 'ok', business: { name: 'x', tone: 'y' } },
    { review: 'ok', extra: true },
    { review: 'x'.repeat(20_001) },
    { review: 'ok', resolution: 'x'.repeat(4001) },
  ]) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 60))
    t.equal(res.body.error.code, 'invalid_request')
    t.equal(ledger.balance, 10)
  }
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => {
    viaFake = false
  })
  fake.set({ text: () => ({ ...good, issues: ['parking'] }) })
  const { res, ledger } = await call({ review: 'Great stay, parking was tight.', rating: 5, business: { name: 'Hotel Nord', voice: 'brief' } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { reply: String, sentiment: 'positive', issues: ['parking'], escalate: false })
  t.same(res.body.usage, { credits: 3, balanceRemaining: 7 })
  t.equal(ledger.balance, 7)
  t.equal(ledger.ledgerSum, 7)
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/responses')
  t.match(JSON.stringify(sent.body), /Hotel Nord/)
})
