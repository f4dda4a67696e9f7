import t from 'tap'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { lengthProblem } from './handler.ts'
import manifest from './manifest.ts'

// The ai SDK mock answers (guarantees) unless a subtest moves to the fake OpenAI-compatible server (happy path).
const cap = await capabilityHarness(t, manifest, { funds: 10 })

const PRICE = 3
const text = 'Our platform provides users with the ability to efficiently manage all of their Acme Invoices in one single place.'
const short = 'Manage all your Acme Invoices in one place.'

t.test('lengthProblem measures, it does not trust', async (t) => {
  t.equal(lengthProblem('shorter', 'a b c d', 'a b c'), null)
  t.match(lengthProblem('shorter', 'a b c', 'a b c'), /not shorter/)
  t.match(lengthProblem('shorter', 'abc', '  abc   \n\n  '), /not shorter/, 'padding does not count')
  t.equal(lengthProblem('longer', 'abc', 'abcd'), null)
  t.match(lengthProblem('longer', 'abcd', 'a    b'), /not longer/, 'whitespace runs count once')
  t.equal(lengthProblem('same', 'x'.repeat(100), 'y'.repeat(120)), null)
  t.match(lengthProblem('same', 'x'.repeat(100), 'y'.repeat(121)), /same length/)
  t.equal(lengthProblem('same', 'Hi', 'Hello there, friend'), null, 'short texts get 20 characters of slack')
  t.equal(lengthProblem(undefined, 'a', 'a much longer text'), null)
})

t.test('a rewrite that keeps the promises', async (t) => {
  cap.reply({ rewritten: `  ${short}\n`, changes: [' Cut filler ', 'Cut filler', '', 'Spoke to the reader'] })
  const call = await cap.call({
    text,
    voice: 'plain',
    goal: 'clarity',
    audience: 'CFOs',
    length: 'shorter',
    preserve: ['Acme Invoices', 'not in the text'],
  })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, {
    rewritten: short,
    changes: ['Cut filler', 'Spoke to the reader'],
    usage: { credits: PRICE, balanceRemaining: 10 - PRICE, livemode: true },
  })
  for (const s of ['plain', 'clarity', 'CFOs', 'shorter', 'Acme Invoices']) t.match(cap.prompts[0], s)
  t.notMatch(cap.prompts[0], 'not in the text', 'a preserve phrase that is not in the text is not demanded')
})

t.test('model answers that break the promises: 502 inference_failed, nothing charged', async (t) => {
  const broken: Array<[string, Record<string, unknown>, unknown]> = [
    ['"shorter" but longer', { text, length: 'shorter' }, { rewritten: `${text} Really.`, changes: ['added emphasis'] }],
    ['"shorter" but the same text', { text, length: 'shorter' }, { rewritten: text, changes: [] }],
    ['"longer" but shorter', { text, length: 'longer' }, { rewritten: short, changes: ['cut'] }],
    ['"same" but a third of it', { text, length: 'same' }, { rewritten: short, changes: ['cut'] }],
    [
      'a preserved phrase changed',
      { text, preserve: ['Acme Invoices'] },
      { rewritten: 'Manage all your ACME invoices in one place.', changes: [] },
    ],
    ['empty rewrite (blank)', { text }, { rewritten: '   ', changes: [] }],
    ['changes not a list', { text }, { rewritten: short, changes: 'cut filler' }],
    ['no rewritten field', { text }, { changes: [] }],
  ]
  for (const [why, body, a] of broken) {
    cap.reply(a)
    await cap.expectRefused(t, body, { status: 502, code: 'inference_failed', why })
  }
})

capabilitySuite(t, cap, {
  badInput: [
    ['no text', { voice: 'plain' }],
    ['empty text', { text: '' }],
    ['text over 50,000 characters', { text: 'x'.repeat(50_001) }],
    ['length outside the enum', { text, length: 'tiny' }],
    ['voice over 2,000 characters', { text, voice: 'v'.repeat(2001) }],
    ['goal not a string', { text, goal: 3 }],
    ['51 preserve phrases', { text, preserve: Array.from({ length: 51 }, (_, i) => `p${i}`) }],
    ['empty preserve phrase', { text, preserve: [''] }],
    ['unknown field', { text, tone: 'warm' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  let seen: FakeTextRequest | undefined
  await cap.useFake({ text: (req) => ((seen = req), { rewritten: short, changes: ['Cut filler'] }) })
  const call = await cap.call({ text, length: 'shorter', voice: 'plain' }, { funds: 4 })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body, { rewritten: short, changes: ['Cut filler'], usage: { credits: PRICE, balanceRemaining: 4 - PRICE, livemode: true } })
  t.ok(seen?.jsonSchema, 'asked for structured output')
  t.match(seen?.prompt, /efficiently manage/)
  t.match(seen?.system, /shorter/)
})
