import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const text = 'Ana: the March invoice run failed again. Ben: I will patch the retry logic by Friday. Ana: then we re-run.'
const points = (n: number) => Array.from({ length: n }, (_, i) => `point ${i + 1}`)

t.test('actionItems: false gives [] even when the model lists some', async (t) => {
  cap.reply({
    summary: 'Run failed; Ben patches it.',
    keyPoints: ['Run failed'],
    actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }],
  })
  const call = await cap.call({ text, actionItems: false })
  cap.expectCharged(t, call)
  t.same(call.res.body.actionItems, [])
  t.match(cap.prompts[0], /always \[\]/)
})

t.test('action items are cleaned: blanks and repeats dropped, owner only when named', async (t) => {
  cap.reply({
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
  const { res } = await cap.call({ text })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    summary: 'Run failed.',
    keyPoints: ['Run failed', 'Patch due Friday'],
    actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }, { task: 'Re-run March' }, { task: 'Tell finance' }],
    usage: { credits: 3, balanceRemaining: 7, livemode: true },
  })
})

t.test('length caps the key points', async (t) => {
  for (const [length, max] of [
    ['brief', 3],
    ['standard', 7],
    ['detailed', 15],
  ] as const) {
    cap.reply({ summary: 'S.', keyPoints: points(40), actionItems: [] })
    const { res } = await cap.call({ text, length })
    t.equal(res.status, 200, res.text)
    t.same(res.body.keyPoints, points(max), length)
  }
})

t.test('an empty summary is a free 502', async (t) => {
  cap.reply({ summary: '   ', keyPoints: [], actionItems: [] })
  await cap.expectRefused(t, { text }, { status: 502, code: 'inference_failed', why: 'an empty summary' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no text', {}],
    ['empty text', { text: '' }],
    ['text too long', { text: 'x'.repeat(500_001) }],
    ['length outside the enum', { text, length: 'short' }],
    ['actionItems not a boolean', { text, actionItems: 'no' }],
    ['unknown property', { text, tone: 'formal' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({
    text: () => ({
      summary: 'The March run failed; Ben patches it by Friday.',
      keyPoints: ['Run failed', 'Patch by Friday'],
      actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }],
    }),
  })
  const call = await cap.call({ text, length: 'brief' })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    summary: 'The March run failed; Ben patches it by Friday.',
    keyPoints: ['Run failed', 'Patch by Friday'],
    actionItems: [{ task: 'Patch retry logic', owner: 'Ben' }],
    usage: { credits: 3, balanceRemaining: 7, livemode: true },
  })
})
