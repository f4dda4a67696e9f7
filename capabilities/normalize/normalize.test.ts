import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const records = [
  { name: 'ACME gmbh', phone: '030 1234567', country: 'germany' },
  { name: 'Globex Ltd.', phone: '+44 20 7946 0958', country: 'UK' },
  { name: 'hooli', country: null },
]
const e = (index: number, field: string, to: unknown, reason = '') => ({ index, field, to, reason })

t.test('changes are the real diff: no-ops, unknown records and repeated cells dropped, reasons kept', async (t) => {
  cap.reply({
    changes: [
      e(0, 'name', 'ACME GmbH', 'Legal form capitalised.\nmore'),
      e(0, 'name', 'Acme', 'a second edit of the same cell'), // the first edit wins
      e(1, 'name', 'Globex Ltd.', 'claims a change that is none'), // no-op: dropped
      e(1, 'country', 'GB'),
      e(2, 'country', 'US', 'guessed'), // null -> "US" is a real change
      e(2, 'phone', '+1 650 000 0000'), // hooli has no phone and fields was not given: not added
      e(5, 'name', 'Ghost'), // no record 5
      e(0, 'website', 'acme.de'), // not a field of the record
    ],
  })
  const call = await cap.call({ records })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    records: [
      { name: 'ACME GmbH', phone: '030 1234567', country: 'germany' },
      { name: 'Globex Ltd.', phone: '+44 20 7946 0958', country: 'GB' },
      { name: 'hooli', country: 'US' },
    ],
    changes: [
      { index: 0, field: 'name', from: 'ACME gmbh', to: 'ACME GmbH', reason: 'Legal form capitalised.' },
      { index: 1, field: 'country', from: 'UK', to: 'GB' },
      { index: 2, field: 'country', from: null, to: 'US', reason: 'guessed' },
    ],
    usage: { credits: 5, balanceRemaining: 5, livemode: true },
  })
})

t.test('fields limits what may change, and may add a listed field', async (t) => {
  cap.reply({ changes: [e(0, 'name', 'Acme'), e(0, 'country', 'DE'), e(2, 'phone', null), e(2, 'phone', '+1')] })
  const { res } = await cap.call({ records, fields: ['country', 'phone'] })
  t.equal(res.status, 200, res.text)
  t.same(res.body.records[0], { name: 'ACME gmbh', phone: '030 1234567', country: 'DE' })
  t.same(res.body.records[2], { name: 'hooli', country: null, phone: null })
  t.same(res.body.changes, [
    { index: 0, field: 'country', from: 'germany', to: 'DE' },
    { index: 2, field: 'phone', to: null }, // added: no "from"
  ])
})

t.test('a type change is a change; a field called __proto__ stays plain data', async (t) => {
  cap.reply({ changes: [e(0, 'amount', 1200), e(0, '__proto__', null)] })
  const { res } = await cap.call({ records: [{ amount: '1,200' }], fields: ['amount', '__proto__'] })
  t.equal(res.status, 200, res.text)
  t.match(res.text, '"records":[{"amount":1200,"__proto__":null}]')
  t.same(res.body.changes, [
    { index: 0, field: 'amount', from: '1,200', to: 1200 },
    { index: 0, field: '__proto__', to: null },
  ])
})

t.test('1,000 records: batched model calls, same count and order, edits only count for records a batch showed', async (t) => {
  const many = Array.from({ length: 1000 }, (_, i) => ({ id: i, city: `city ${i}` }))
  const seen: number[][] = []
  cap.reply((p: string) => {
    const shown = [...p.matchAll(/R\[(\d+)\]/g)].map((m) => Number(m[1]))
    seen.push(shown)
    // Each batch edits its own records and also claims record 999 (which only the last batch showed).
    return { changes: [...shown.map((i) => e(i, 'city', `CITY ${i}`)), e(999, 'city', 'hijacked')] }
  })
  const { res } = await cap.call({ records: many })
  t.equal(res.status, 200, res.text)
  t.equal(seen.length, 10)
  t.same(
    seen.flat().sort((x, y) => x - y),
    many.map((_, i) => i),
    'every record shown exactly once',
  )
  t.equal(res.body.records.length, 1000)
  t.same(
    res.body.records.map((r: any) => r.id),
    many.map((r) => r.id),
  )
  t.same(res.body.records[999], { id: 999, city: 'CITY 999' })
  t.equal(res.body.changes.length, 1000)
})

t.test('one failed batch fails the call, free', async (t) => {
  const many = Array.from({ length: 250 }, (_, i) => ({ id: i }))
  cap.reply((p: string) => (p.includes('R[100]') ? { changes: 'not a list' } : { changes: [] }))
  await cap.expectRefused(t, { records: many }, { status: 502, code: 'inference_failed', why: 'the second batch fails' })
})

const wide = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i]))
capabilitySuite(t, cap, {
  badInput: [
    ['no records', {}],
    ['empty records', { records: [] }],
    ['1,001 records', { records: Array.from({ length: 1001 }, () => ({ x: 1 })) }],
    ['a record that is not an object', { records: ['x'] }],
    ['a nested value', { records: [{ a: [1] }] }],
    ['51 fields', { records: [wide] }],
    ['a value too long', { records: [{ a: 'x'.repeat(2001) }] }],
    ['empty fields', { records, fields: [] }],
    ['instructions too long', { records, instructions: 'x'.repeat(4001) }],
    ['unknown property', { records, strict: true }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: () => ({ changes: [e(1, 'country', 'GB', 'ISO 3166 code')] }) })
  const call = await cap.call({ records })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    records: [records[0], { ...records[1], country: 'GB' }, records[2]],
    changes: [{ index: 1, field: 'country', from: 'UK', to: 'GB', reason: 'ISO 3166 code' }],
    usage: { credits: 5, balanceRemaining: 5, livemode: true },
  })
})
