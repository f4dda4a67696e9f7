import t from 'tap'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

// The ai SDK mock answers (guarantees) unless a subtest moves to the fake OpenAI-compatible server (happy path).
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const PRICE = 5
const thread = 'Customer: My order #4411 arrived broken. This is the second time!'

t.test('a draft with subject and internal note; tone, goal, context and sender reach the model', async (t) => {
  cap.reply({
    reply: '\nSo sorry! A replacement ships today.\n\nSam\n',
    subject: ' Re: your\norder ',
    internalNote: ' Second broken delivery. ',
  })
  const call = await cap.call({
    thread,
    context: 'Replacement stock available.',
    tone: 'apologetic',
    goal: 'offer a replacement',
    senderName: 'Sam',
  })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    reply: 'So sorry! A replacement ships today.\n\nSam',
    subject: 'Re: your order',
    internalNote: 'Second broken delivery.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  for (const s of ['apologise', 'Replacement stock available', 'offer a replacement', 'Sign the reply as Sam', 'arrived broken'])
    t.match(cap.prompts[0], s)
})

t.test('an unfilled placeholder gets the corrective retry, then 502, free (issue 16 #8)', async (t) => {
  for (const slot of ['[Your Name]', '{{sender_name}}', '<Agent Name>', '[Customer]']) {
    cap.reply(
      { reply: `Thanks!\n${slot}`, subject: null, internalNote: null },
      { reply: 'Thanks!\nAna', subject: null, internalNote: null },
    )
    const fixed = await cap.call({ thread, tone: 'friendly', senderName: 'Ana' })
    cap.expectCharged(t, fixed)
    t.same(fixed.res.body.reply, 'Thanks!\nAna', `${slot}: the retried answer is served`)
    t.notOk('subject' in fixed.res.body, 'a null subject is omitted')
    t.equal(cap.prompts.length, 2, `${slot}: one corrective retry`)
    t.match(cap.prompts[1], /Answer again/, `${slot}: the retry says what was wrong`)

    cap.reply({ reply: `Thanks!\n${slot}`, subject: null, internalNote: null })
    await cap.expectRefused(t, { thread }, { status: 502, code: 'inference_failed', why: `${slot} twice` })
  }
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['empty reply', { reply: '  \n ', subject: null, internalNote: null }],
    ['reply missing', { subject: 'Hi', internalNote: null }],
    ['reply not a string', { reply: ['Hi'], subject: null, internalNote: null }],
    ['subject over 300 characters', { reply: 'Hi', subject: 's'.repeat(301), internalNote: null }],
  ]
  for (const [why, a] of broken) {
    cap.reply(a)
    await cap.expectRefused(t, { thread }, { status: 502, code: 'inference_failed', why })
  }
})

capabilitySuite(t, cap, {
  badInput: [
    ['no thread', { tone: 'firm' }],
    ['empty thread', { thread: '' }],
    ['thread over 500,000 characters', { thread: 'x'.repeat(500_001) }],
    ['tone outside the enum', { thread, tone: 'sarcastic' }],
    ['tone in another case', { thread, tone: 'Friendly' }],
    ['context over 100,000 characters', { thread, context: 'c'.repeat(100_001) }],
    ['goal over 2,000 characters', { thread, goal: 'g'.repeat(2001) }],
    ['empty senderName', { thread, senderName: '' }],
    ['senderName over 200 characters', { thread, senderName: 'n'.repeat(201) }],
    ['thread as messages', { thread: [{ from: 'customer', text: 'hi' }] }],
    ['unknown field', { thread, language: 'en' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  let seen: FakeTextRequest | undefined
  await cap.useFake({
    text: (req) => ((seen = req), { reply: 'We will make it right.\n\nSam', subject: 'Re: order #4411', internalNote: null }),
  })
  const call = await cap.call({ thread, tone: 'firm', senderName: 'Sam' }, { funds: 6 })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    reply: 'We will make it right.\n\nSam',
    subject: 'Re: order #4411',
    usage: { credits: PRICE, balanceRemaining: 6 - PRICE, livemode: true },
  })
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /arrived broken/)
  t.match(seen?.system, /firm/)
})
