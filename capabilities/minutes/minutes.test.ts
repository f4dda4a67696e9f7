import t from 'tap'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { matchAttendee } from './handler.ts'
import manifest from './manifest.ts'

// The ai SDK mock answers (guarantees) unless a subtest moves to the fake OpenAI-compatible server (happy path).
const cap = await capabilityHarness(t, manifest, { funds: 10 })

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
  cap.reply(
    answer({
      actionItems: [
        { task: 'Write the release notes', owner: 'lee chen', due: 'March 12, 2025' },
        { task: 'Confirm the ship date', owner: 'Dana', due: null },
        { task: '  ', owner: null, due: null },
      ],
    }),
  )
  const call = await cap.call({ transcript, attendees, meetingDate: '2025-03-10' })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    title: 'Beta planning',
    summary: 'Ship date agreed; pricing open.',
    decisions: ['Ship on 2025-03-14.'],
    actionItems: [
      { task: 'Write the release notes', owner: 'Lee Chen', due: '2025-03-12' },
      { task: 'Confirm the ship date', owner: 'Dana Ortiz' },
    ],
    openQuestions: ['Beta pricing?'],
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  t.match(cap.prompts[0], /2025-03-10/, 'the meeting date reaches the model')
  t.match(cap.prompts[0], /Lee Chen/)
})

t.test('an owner outside the attendees or a due that is no date: kept out, reported in warnings', async (t) => {
  cap.reply(
    answer({
      actionItems: [
        { task: 'Review the terms', owner: 'Bob from legal', due: 'next week' },
        { task: 'Fix pricing', owner: 'Lee', due: '2025-02-30' },
      ],
    }),
  )
  const { res } = await cap.call({ transcript, attendees })
  t.equal(res.status, 200, res.text)
  t.same(res.body.actionItems, [{ task: 'Review the terms' }, { task: 'Fix pricing', owner: 'Lee Chen' }])
  t.same(res.body.warnings, [
    'actionItems/0: owner "Bob from legal" is not one of the attendees; the item is left unassigned.',
    'actionItems/0: due "next week" is not a calendar date; the item has no due date.',
    'actionItems/1: due "2025-02-30" is not a calendar date; the item has no due date.',
  ])
})

t.test('without attendees the owner named in the transcript is kept', async (t) => {
  cap.reply(answer({ actionItems: [{ task: 'Review the terms', owner: 'Bob', due: null }] }))
  const { res } = await cap.call({ transcript })
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
    cap.reply(a)
    await cap.expectRefused(t, { transcript, attendees }, { status: 502, code: 'inference_failed', why })
  }
})

capabilitySuite(t, cap, {
  badInput: [
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
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  let seen: FakeTextRequest | undefined
  await cap.useFake({ text: (req) => ((seen = req), answer()) })
  const call = await cap.call({ transcript, attendees }, { funds: 8 })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    title: 'Beta planning',
    summary: 'Ship date agreed; pricing open.',
    decisions: ['Ship on 2025-03-14.'],
    actionItems: [{ task: 'Write the release notes', owner: 'Lee Chen', due: '2025-03-12' }],
    openQuestions: ['Beta pricing?'],
    usage: { credits: PRICE, balanceRemaining: 8 - PRICE, livemode: true },
  })
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /release notes/)
})
