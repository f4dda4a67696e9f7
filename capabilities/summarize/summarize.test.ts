import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'

let reply: (prompt: string) => unknown = () => ({})
const app = await startTestApp(t, { provider: mockProvider((p) => reply(p)) })

const text = 'Ana: the March invoice run failed again. Ben: I will patch the retry logic by Friday. Ana: then we re-run.'
const points = (n: number) => Array.from({ length: n }, (_, i) => `point ${i + 1}`)

t.test('actionItems: false gives [] even when the model lists some', async (t) => {
  const c = await app.customer(10)
  let prompt = ''
  reply = (p) => {
    prompt = p
    return { summary: 'Run failed; Ben patches it.', keyPoints: ['Run failed'], actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }] }
  }
  const res = await app.call('/v1/summarize', { key: c.key, body: { text, actionItems: false } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.actionItems, [])
  t.match(prompt, /always \[\]/)
  t.same(res.body.usage, { credits: 3, balanceRemaining: 7 })
})

t.test('action items are cleaned: blanks and repeats dropped, owner only when named', async (t) => {
  const c = await app.customer(10)
  reply = () => ({
    summary: '  Run failed.  ',
    keyPoints: ['Run failed', ' run failed ', '', 'Patch due Friday'],
    actionItems: [
      { task: 'Patch retry logic', owner: 'Ben' },
      { task: 'patch retry logic', owner: 'ben' },
      { task: '  ', owner: 'Ana' },
      { task: 'Re-run March', owner: null },
      { task: 'Tell finance', owner: '' },
    ],
  })
  const res = await app.call('/v1/summarize', { key: c.key, body: { text } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    summary: 'Run failed.',
    keyPoints: ['Run failed', 'Patch due Friday'],
    actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }, { task: 'Re-run March' }, { task: 'Tell finance' }],
    usage: { credits: 3, balanceRemaining: 7 },
  })
})

t.test('length caps the key points', async (t) => {
  const c = await app.customer(30)
  for (const [length, max] of [['brief', 3], ['standard', 7], ['detailed', 15]] as const) {
    reply = () => ({ summary: 'S.', keyPoints: points(40), actionItems: [] })
    const res = await app.call('/v1/summarize', { key: c.key, body: { text, length } })
    t.equal(res.status, 200, res.text)
    t.same(res.body.keyPoints, points(max), length)
  }
})

t.test('an empty summary is a free 502', async (t) => {
  const c = await app.customer(10)
  reply = () => ({ summary: '   ', keyPoints: [], actionItems: [] })
  const res = await app.call('/v1/summarize', { key: c.key, body: { text } })
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'inference_failed')
  t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  const c = await app.customer(10)
  reply = () => {
    throw new Error('the model must not be called')
  }
  const bad: Array<[string, unknown]> = [
    ['no text', {}],
    ['empty text', { text: '' }],
    ['text too long', { text: 'x'.repeat(500_001) }],
    ['length outside the enum', { text, length: 'short' }],
    ['actionItems not a boolean', { text, actionItems: 'no' }],
    ['unknown property', { text, tone: 'formal' }],
  ]
  for (const [name, body] of bad) {
    const res = await app.call('/v1/summarize', { key: c.key, body })
    t.equal(res.status, 400, name)
    t.equal(res.body.error.code, 'invalid_request', name)
  }
  t.same(await app.ledger(c.accountId), { balance: 10, reserved: 0, ledgerSum: 10 })
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  const fake = await startFakeOpenAI({
    text: () => ({ summary: 'The March run failed; Ben patches it by Friday.', keyPoints: ['Run failed', 'Patch by Friday'], actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }] }),
  })
  t.teardown(() => fake.close())
  const served = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL) })
  const c = await served.customer(10)
  const res = await served.call('/v1/summarize', { key: c.key, body: { text, length: 'brief' } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    summary: 'The March run failed; Ben patches it by Friday.',
    keyPoints: ['Run failed', 'Patch by Friday'],
    actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }],
    usage: { credits: 3, balanceRemaining: 7 },
  })
  t.same(await served.ledger(c.accountId), { balance: 7, reserved: 0, ledgerSum: 7 })
})
