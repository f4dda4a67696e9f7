import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const a = [
  { name: 'Acme GmbH', city: 'Berlin' },
  { name: 'Globex Ltd', city: 'London' },
  { name: 'Hooli', city: 'Palo Alto' },
]
const b = [
  { company: 'GLOBEX LIMITED', town: 'London' },
  { company: 'ACME Gesellschaft mbH', town: 'Berlin' },
  { company: 'Initech', town: 'Austin' },
]
const m = (aIndex: number, bIndex: number, confidence: number, reason = 'r') => ({ aIndex, bIndex, confidence, reason })

t.test('indexes in range, one-to-one keeping the highest confidence, unmatched computed', async (t) => {
  cap.reply({
    matches: [
      m(0, 1, 0.6, 'weak guess'),
      m(0, 1, 0.9, 'same name and city'), // duplicate pair: the higher confidence wins
      m(1, 1, 0.7), // b[1] already taken by a stronger pair
      m(1, 0, 0.95, 'Ltd = Limited\nsecond line dropped'),
      m(2, 7, 0.99), // bIndex out of range
      m(-1, 2, 0.99), // aIndex out of range
      m(3, 2, 0.99), // aIndex out of range
      m(2, 0, 0.5), // b[0] already matched
    ],
  })
  const call = await cap.call({ a, b, keys: ['name', 'city'] })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    matches: [
      { aIndex: 0, bIndex: 1, confidence: 0.9, reason: 'same name and city' },
      { aIndex: 1, bIndex: 0, confidence: 0.95, reason: 'Ltd = Limited' },
    ],
    unmatchedA: [2],
    unmatchedB: [2],
    usage: { credits: 8, balanceRemaining: 2, livemode: true },
  })
})

t.test('the model sees every record with its index', async (t) => {
  cap.reply({ matches: [] })
  const { res } = await cap.call({ a, b })
  t.equal(res.status, 200, res.text)
  t.same(res.body.matches, [])
  t.same(res.body.unmatchedA, [0, 1, 2])
  t.same(res.body.unmatchedB, [0, 1, 2])
  t.match(cap.prompts[0], 'A[2] ')
  t.match(cap.prompts[0], 'B[2] ')
})

t.test('minConfidence drops weak pairs and frees their rows', async (t) => {
  cap.reply({ matches: [m(0, 1, 0.9), m(1, 0, 0.4, '')] })
  const { res } = await cap.call({ a, b, minConfidence: 0.5 })
  t.equal(res.status, 200, res.text)
  t.same(res.body.matches, [{ aIndex: 0, bIndex: 1, confidence: 0.9, reason: 'r' }])
  t.same(res.body.unmatchedA, [1, 2])
  t.same(res.body.unmatchedB, [0, 2])
})

t.test('a non-integer index (twice) is a free 502', async (t) => {
  cap.reply({ matches: [m(0.5, 1, 0.9)] })
  await cap.expectRefused(t, { a, b }, { status: 502, code: 'inference_failed', why: 'aIndex 0.5' })
})

const wide = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i]))
capabilitySuite(t, cap, {
  badInput: [
    ['no b', { a }],
    ['empty a', { a: [], b }],
    ['501 rows', { a: Array.from({ length: 501 }, () => ({ x: 1 })), b }],
    ['a row that is not an object', { a: ['Acme'], b }],
    ['a nested value', { a: [{ name: { first: 'x' } }], b }],
    ['51 fields in a row', { a: [wide], b }],
    ['a value too long', { a: [{ name: 'x'.repeat(2001) }], b }],
    ['a field name too long', { a: [{ ['k'.repeat(101)]: 1 }], b }],
    ['keys not strings', { a, b, keys: [1] }],
    ['minConfidence above 1', { a, b, minConfidence: 2 }],
    ['unknown property', { a, b, fuzzy: true }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: () => ({ matches: [m(1, 0, 0.95, 'Ltd = Limited'), m(0, 1, 0.9, 'same city')] }) })
  const call = await cap.call({ a, b })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    matches: [
      { aIndex: 0, bIndex: 1, confidence: 0.9, reason: 'same city' },
      { aIndex: 1, bIndex: 0, confidence: 0.95, reason: 'Ltd = Limited' },
    ],
    unmatchedA: [2],
    unmatchedB: [2],
    usage: { credits: 8, balanceRemaining: 2, livemode: true },
  })
})
