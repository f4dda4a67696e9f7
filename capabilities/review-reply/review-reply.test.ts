import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// The mock text model answers unless a subtest moves to the fake OpenAI-compatible server.
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const good = {
  reply: 'Thank you for the kind words about our staff; we are glad the room was spotless. See you next time!',
  sentiment: 'positive',
  issues: [],
  escalate: false,
  escalationReason: null,
}

t.test('sentiment that contradicts the stars becomes mixed', async (t) => {
  cap.reply({ ...good, sentiment: 'negative', issues: ['slow check-in', 'Slow check-in ', ''] })
  const call = await cap.call({ review: 'Lovely stay, check-in was slow though.', rating: 5 })
  cap.expectCharged(t, call)
  const { res } = call
  t.equal(res.body.sentiment, 'mixed')
  t.same(res.body.issues, ['slow check-in'], 'issues trimmed, deduplicated, empty ones dropped')
  t.equal(res.body.escalate, false)
  t.notOk('escalationReasons' in res.body)

  cap.reply({ ...good, sentiment: 'positive' })
  const low = await cap.call({ review: 'Nice people but the room smelled.', rating: 2 })
  t.equal(low.res.body.sentiment, 'mixed', 'a 2-star review is never "positive"')
})

t.test('a low rating with issues is escalated even when the model says no', async (t) => {
  cap.reply({ ...good, sentiment: 'negative', issues: ['cold food', 'rude server'], escalate: false })
  const { res } = await cap.call({ review: 'Cold food, rude server.', rating: 1 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.escalate, true)
  t.match(res.body.escalationReasons, [/Rating 1 of 5/])

  cap.reply({ ...good, sentiment: 'negative', issues: [], escalate: false })
  const noIssues = await cap.call({ review: 'Meh.', rating: 2 })
  t.equal(noIssues.res.body.escalate, false, 'no reported issue, no forced escalation')
})

t.test('legal, safety or health language is escalated whatever the rating', async (t) => {
  cap.reply({ ...good, sentiment: 'mixed', issues: ['illness after meal'], escalate: false })
  const { res } = await cap.call({ review: 'Great view, but I got food poisoning and my lawyer will hear about it.', rating: 4 })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.escalate, true)
  t.match(res.body.escalationReasons.join(' '), /food poisoning/)
})

t.test("the model's own escalation is kept, with its reason", async (t) => {
  cap.reply({
    ...good,
    sentiment: 'negative',
    issues: ['overbooked'],
    escalate: true,
    escalationReason: 'Guest was turned away at midnight.',
  })
  const { res } = await cap.call({ review: 'They gave away our room at midnight.' })
  t.equal(res.body.escalate, true)
  t.same(res.body.escalationReasons, ['Guest was turned away at midnight.'])
})

t.test('a reply with template placeholders or no text is a failed call, free', async (t) => {
  cap.reply({ ...good, reply: 'Dear [Customer Name], thank you for your review!' })
  await cap.expectRefused(t, { review: 'Good.', rating: 5 }, { status: 502, code: 'inference_failed', why: 'a template placeholder' })

  cap.reply({ ...good, reply: '   ' })
  await cap.expectRefused(t, { review: 'Good.' }, { status: 502, code: 'inference_failed', why: 'no reply text' })

  cap.reply({ ...good, sentiment: 'ecstatic' })
  await cap.expectRefused(
    t,
    { review: 'Good.' },
    { status: 502, code: 'inference_failed', why: 'a sentiment outside the enum fails the schema after one retry' },
  )
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { review: '' },
    { review: 'ok', rating: 0 },
    { review: 'ok', rating: 6 },
    { review: 'ok', rating: 4.5 },
    { review: 'ok', business: { name: 'x', tone: 'y' } },
    { review: 'ok', extra: true },
    { review: 'x'.repeat(20_001) },
    { review: 'ok', resolution: 'x'.repeat(4001) },
  ],
})

t.test('one call through the fake OpenAI-compatible server', async (t) => {
  const fake = await cap.useFake({ text: () => ({ ...good, issues: ['parking'] }) })
  const call = await cap.call({ review: 'Great stay, parking was tight.', rating: 5, business: { name: 'Hotel Nord', voice: 'brief' } })
  cap.expectCharged(t, call)
  t.match(call.res.body, { reply: String, sentiment: 'positive', issues: ['parking'], escalate: false })
  const sent = fake.requests.at(-1)!
  t.equal(sent.path, '/v1/responses')
  t.match(JSON.stringify(sent.body), /Hotel Nord/)
})
