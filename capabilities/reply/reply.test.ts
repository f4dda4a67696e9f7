import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'

// One app per file; the text model is the ai SDK mock (guarantees) or the fake OpenAI server (happy path).
let reply: (prompt: string) => unknown = () => ({})
let fakeReply: (req: FakeTextRequest) => unknown = () => undefined
let viaFake = false
const fake = await startFakeOpenAI({ text: (req) => fakeReply(req) })
t.teardown(() => fake.close())
const mock = mockProvider((p) => reply(p))
const wire = fakeServerProvider(fake.baseURL)
const provider: ModelProvider = { ...mock, language: () => (viaFake ? wire : mock).language() }
const app = await startTestApp(t, { provider })

const PRICE = 5
const thread = 'Customer: My order #4411 arrived broken. This is the second time!'

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/reply', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('a draft with subject and internal note; tone, goal, context and sender reach the model', async (t) => {
  let prompt = ''
  reply = (p) => {
    prompt = p
    return { reply: '\nSo sorry! A replacement ships today.\n\n[Your Name]\n', subject: ' Re: your\norder ', internalNote: ' Second broken delivery. ' }
  }
  const { res, ledger } = await call({ thread, context: 'Replacement stock available.', tone: 'apologetic', goal: 'offer a replacement', senderName: 'Sam' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    reply: 'So sorry! A replacement ships today.\n\nSam',
    subject: 'Re: your order',
    internalNote: 'Second broken delivery.',
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  t.equal(ledger.balance, 10 - PRICE)
  for (const s of ['apologise', 'Replacement stock available', 'offer a replacement', 'Sign the reply as Sam', 'arrived broken']) t.match(prompt, s)
})

t.test('name slots are filled only when senderName is given; empty subject and note are omitted', async (t) => {
  reply = () => ({ reply: 'Thanks!\n{{sender_name}} / <Agent Name> / [your name]', subject: '  ', internalNote: null })
  const named = await call({ thread, tone: 'friendly', senderName: 'Ana' })
  t.equal(named.res.status, 200, named.res.text)
  t.same(named.res.body, { reply: 'Thanks!\nAna / Ana / Ana', usage: { credits: PRICE, balanceRemaining: 10 - PRICE } })

  const anonymous = await call({ thread })
  t.equal(anonymous.res.status, 200, anonymous.res.text)
  t.equal(anonymous.res.body.reply, 'Thanks!\n{{sender_name}} / <Agent Name> / [your name]', 'left for the human to fill in')
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['empty reply', { reply: '  \n ', subject: null, internalNote: null }],
    ['reply missing', { subject: 'Hi', internalNote: null }],
    ['reply not a string', { reply: ['Hi'], subject: null, internalNote: null }],
    ['subject over 300 characters', { reply: 'Hi', subject: 's'.repeat(301), internalNote: null }],
  ]
  for (const [why, a] of broken) {
    reply = () => a
    const { res, ledger } = await call({ thread })
    t.equal(res.status, 502, why)
    t.equal(res.body.error?.code, 'inference_failed', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const bad: Array<[string, unknown]> = [
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
  ]
  for (const [why, body] of bad) {
    const { res, ledger } = await call(body)
    t.equal(res.status, 400, why)
    t.equal(res.body.error?.code, 'invalid_request', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  viaFake = true
  t.teardown(() => void (viaFake = false))
  let seen: FakeTextRequest | undefined
  fakeReply = (req) => ((seen = req), { reply: 'We will make it right.\n\nSam', subject: 'Re: order #4411', internalNote: null })
  const { res, ledger } = await call({ thread, tone: 'firm', senderName: 'Sam' }, 6)
  t.equal(res.status, 200, res.text)
  t.same(res.body, { reply: 'We will make it right.\n\nSam', subject: 'Re: order #4411', usage: { credits: PRICE, balanceRemaining: 6 - PRICE } })
  t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [6 - PRICE, 0, 6 - PRICE])
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /arrived broken/)
  t.match(seen?.system, /firm/)
})
