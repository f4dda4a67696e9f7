import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../test/helpers/fake-openai.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import { matchAttendee } from './handler.ts'

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

const PRICE = 6
const transcript = 'Dana: we ship on the 14th. Lee, release notes by Wednesday? Lee: yes. Dana: pricing is still open. Ask Bob from legal.'
const attendees = ['Dana Ortiz', 'Lee Chen']
const answer = (over: Record<string, unknown> = {}) => ({
  title: ' Beta\nplanning ',
  summary: 'Ship date agreed; pricing open.',
  decisions: ['Ship on 2025-03-14.', '  ', 'ship on 2025-03-14.'],
  actionItems: [{ task: 'Write the release notes', owner: 'lee chen', due: '2025-03-12' }],
  openQuestions: ['Beta pricing?'],
  ...over,
})

async function call(body: unknown, funds = 10) {
  const c = await app.customer(funds)
  const res = await app.call('/v1/minutes', { key: c.key, body })
  return { res, ledger: await app.ledger(c.accountId) }
}

t.test('matchAttendee', async (t) => {
  t.equal(matchAttendee('LEE CHEN', attendees), 'Lee Chen')
  t.equal(matchAttendee('Dana', attendees), 'Dana Ortiz')
  t.equal(matchAttendee('Ortiz', attendees), 'Dana Ortiz')
  t.equal(matchAttendee('Dana Ortiz', ['Dana', 'Lee']), 'Dana')
  t.equal(matchAttendee('Bob', attendees), null)
  t.equal(matchAttendee('Dana', ['Dana Ortiz', 'Dana Lee']), null, 'ambiguous')
  t.equal(matchAttendee('Dana and Lee', attendees), null, 'two people')
  t.equal(matchAttendee('', attendees), null)
})

t.test('owners are attendees in the caller spelling; dates are YYYY-MM-DD; lists cleaned', async (t) => {
  let prompt = ''
  reply = (p) => {
    prompt = p
    return answer({
      actionItems: [
        { task: 'Write the release notes', owner: 'lee chen', due: 'March 12, 2025' },
        { task: 'Confirm the ship date', owner: 'Dana', due: null },
        { task: '  ', owner: null, due: null },
      ],
    })
  }
  const { res, ledger } = await call({ transcript, attendees, meetingDate: '2025-03-10' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    title: 'Beta planning',
    summary: 'Ship date agreed; pricing open.',
    decisions: ['Ship on 2025-03-14.'],
    actionItems: [
      { task: 'Write the release notes', owner: 'Lee Chen', due: '2025-03-12' },
      { task: 'Confirm the ship date', owner: 'Dana Ortiz' },
    ],
    openQuestions: ['Beta pricing?'],
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE },
  })
  t.equal(ledger.balance, 10 - PRICE)
  t.match(prompt, /2025-03-10/, 'the meeting date reaches the model')
  t.match(prompt, /Lee Chen/)
})

t.test('an owner outside the attendees or a due that is no date: kept out, reported in warnings', async (t) => {
  reply = () =>
    answer({
      actionItems: [
        { task: 'Review the terms', owner: 'Bob from legal', due: 'next week' },
        { task: 'Fix pricing', owner: 'Lee', due: '2025-02-30' },
      ],
    })
  const { res } = await call({ transcript, attendees })
  t.equal(res.status, 200, res.text)
  t.same(res.body.actionItems, [{ task: 'Review the terms' }, { task: 'Fix pricing', owner: 'Lee Chen' }])
  t.same(res.body.warnings, [
    'actionItems/0: owner "Bob from legal" is not one of the attendees; the item is left unassigned.',
    'actionItems/0: due "next week" is not a calendar date; the item has no due date.',
    'actionItems/1: due "2025-02-30" is not a calendar date; the item has no due date.',
  ])
})

t.test('without attendees the owner named in the transcript is kept', async (t) => {
  reply = () => answer({ actionItems: [{ task: 'Review the terms', owner: 'Bob', due: null }] })
  const { res } = await call({ transcript })
  t.equal(res.status, 200, res.text)
  t.same(res.body.actionItems, [{ task: 'Review the terms', owner: 'Bob' }])
  t.notOk('warnings' in res.body)
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, unknown]> = [
    ['empty summary', answer({ summary: '   ' })],
    ['empty title', answer({ title: '' })],
    ['decisions not a list', answer({ decisions: 'ship it' })],
    ['action item without task', answer({ actionItems: [{ owner: 'Lee Chen', due: null }] })],
    ['not JSON', 'The meeting was about shipping.'],
  ]
  for (const [why, a] of broken) {
    reply = () => a
    const { res, ledger } = await call({ transcript, attendees })
    t.equal(res.status, 502, why)
    t.equal(res.body.error?.code, 'inference_failed', why)
    t.same([ledger.balance, ledger.reserved], [10, 0], `${why}: nothing charged`)
  }
})

t.test('bad input: 400 invalid_request, nothing charged', async (t) => {
  reply = () => t.fail('the model must not be called')
  const bad: Array<[string, unknown]> = [
    ['no transcript', { attendees }],
    ['empty transcript', { transcript: '' }],
    ['transcript over 500,000 characters', { transcript: 'x'.repeat(500_001) }],
    ['attendees not strings', { transcript, attendees: [{ name: 'Lee' }] }],
    ['empty attendees', { transcript, attendees: [] }],
    ['duplicate attendees', { transcript, attendees: ['Lee', 'Lee'] }],
    ['201 attendees', { transcript, attendees: Array.from({ length: 201 }, (_, i) => `p${i}`) }],
    ['meetingDate not a date', { transcript, meetingDate: 'Monday' }],
    ['meetingDate impossible', { transcript, meetingDate: '2025-02-30' }],
    ['unknown field', { transcript, language: 'en' }],
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
  fakeReply = (req) => ((seen = req), answer())
  const { res, ledger } = await call({ transcript, attendees }, 8)
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    title: 'Beta planning',
    summary: 'Ship date agreed; pricing open.',
    decisions: ['Ship on 2025-03-14.'],
    actionItems: [{ task: 'Write the release notes', owner: 'Lee Chen', due: '2025-03-12' }],
    openQuestions: ['Beta pricing?'],
    usage: { credits: PRICE, balanceRemaining: 8 - PRICE },
  })
  t.same([ledger.balance, ledger.reserved, ledger.ledgerSum], [8 - PRICE, 0, 8 - PRICE])
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /release notes/)
})
