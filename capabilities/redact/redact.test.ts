import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { detect } from './detectors.ts'
import manifest from './manifest.ts'

const cap = await capabilityHarness(t, manifest, { funds: 10 })

const ALL = new Set(['email', 'phone', 'ssn', 'card'])
const text = [
  'Patient Jane Doe (DOB 1984-02-11), SSN 123-45-6789, was seen for asthma.',
  'Reach her at jane.doe@example.com, (555) 123-4567 or +44 20 7946 0958.',
  'Card on file: 4111 1111 1111 1111; old card 4111 1111 1111 1112 (declined). jane doe confirmed.',
].join('\n')
/** Every check below: what the detectors find must not be found again in `redacted`. */
const survivors = (s: string) => detect(s, ALL).map((d) => s.slice(d.start, d.end))

t.test('a model that misses everything: the detectors still redact emails, phones, SSNs and cards', async (t) => {
  cap.reply({ entities: [] })
  const call = await cap.call({ text })
  cap.expectCharged(t, call)
  const { res } = call
  const found = res.body.entities.map((e: any) => [e.type, e.text])
  t.same(found, [
    ['ssn', '123-45-6789'],
    ['email', 'jane.doe@example.com'],
    ['phone', '(555) 123-4567'],
    ['phone', '+44 20 7946 0958'],
    ['card', '4111 1111 1111 1111'],
  ])
  t.equal(res.body.entityCount, 5)
  t.same(survivors(res.body.redacted), [])
  t.match(res.body.redacted, 'SSN [REDACTED:SSN], was seen')
  t.match(res.body.redacted, '4111 1111 1111 1112', 'a number that fails Luhn is not a card')
  for (const e of res.body.entities) t.equal(text.slice(e.start, e.end), e.text)
})

t.test('model entities: every occurrence redacted, invented ones dropped, unasked types dropped', async (t) => {
  cap.reply({
    entities: [
      { type: 'name', text: 'Jane Doe' }, // also occurs as "jane doe"
      { type: 'name', text: 'John Smith' }, // not in the text: dropped
      { type: 'medical', text: 'asthma' },
      { type: 'dob', text: '1984-02-11' }, // not asked for below
      { type: 'email', text: 'jane.doe@example.com' }, // the detector found it too: one entity
      { type: 'name', text: 'J' }, // a lone letter is never a pattern
    ],
  })
  const { res } = await cap.call({ text, types: ['name', 'medical', 'email', 'card'] })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.entities.map((e: any) => [e.type, e.text]),
    [
      ['name', 'Jane Doe'],
      ['medical', 'asthma'],
      ['email', 'jane.doe@example.com'],
      ['card', '4111 1111 1111 1111'],
      ['name', 'jane doe'],
    ],
  )
  t.equal(res.body.entityCount, 5)
  t.notMatch(res.body.redacted, /jane doe|John Smith|asthma/i)
  t.match(res.body.redacted, 'DOB 1984-02-11', 'dob was not requested')
  t.match(res.body.redacted, '123-45-6789', 'ssn was not requested')
  t.match(res.body.redacted, '(555) 123-4567', 'phone was not requested')
})

t.test('redacted is written by code from the original text, whatever the model claims', async (t) => {
  // The model is never asked for redacted text; an entity that paraphrases the text instead of quoting it
  // ("Doe, Jane") matches nothing and cannot rewrite the text.
  cap.reply({
    entities: [
      { type: 'name', text: 'Doe, Jane' },
      { type: 'address', text: 'the text was fully cleaned' },
    ],
  })
  const { res } = await cap.call({ text: 'Mail jane@example.com, SSN 078-05-1120 today.' })
  t.equal(res.status, 200, res.text)
  t.same(res.body, {
    redacted: 'Mail [REDACTED:EMAIL], SSN [REDACTED:SSN] today.',
    entities: [
      { type: 'email', text: 'jane@example.com', start: 5, end: 21 },
      { type: 'ssn', text: '078-05-1120', start: 27, end: 38 },
    ],
    entityCount: 2,
    usage: { credits: 3, balanceRemaining: 7, livemode: true },
  })
})

t.test('issue 16: an email glued to a card number is redacted whole, and the output is searched again', async (t) => {
  // The model names the email; before, it was matched on word boundaries only and the email detector refused a
  // match followed by a digit, so "jane@example.com" leaked next to [REDACTED:CARD], charged.
  cap.reply({ entities: [{ type: 'email', text: 'jane@example.com' }] })
  const call = await cap.call({ text: 'pay jane@example.com4111 1111 1111 1111 now' })
  cap.expectCharged(t, call)
  t.equal(call.res.body.redacted, 'pay [REDACTED:EMAIL][REDACTED:CARD] now')
  t.same(survivors(call.res.body.redacted), [])
  t.same(
    call.res.body.entities.map((e: any) => [e.type, e.start, e.end]),
    [
      ['email', 4, 20],
      ['card', 20, 39],
    ],
  )
})

t.test('overlapping spans become one placeholder typed by the longest span', async (t) => {
  cap.reply({
    entities: [
      { type: 'address', text: '1 Main St, Springfield, tel 555-123-4567' },
      { type: 'name', text: 'Main' },
    ],
  })
  const { res } = await cap.call({ text: 'Ship to 1 Main St, Springfield, tel 555-123-4567 now.' })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.redacted, 'Ship to [REDACTED:ADDRESS] now.')
  t.same(res.body.entities, [{ type: 'address', text: '1 Main St, Springfield, tel 555-123-4567', start: 8, end: 48 }])
})

t.test('placeholder: {type} and {TYPE} tokens, or a fixed string', async (t) => {
  const c = await cap.customer()
  cap.reply({ entities: [{ type: 'name', text: 'Jane' }] })
  const body = { text: 'Jane: jane@example.com' }
  let res = await cap.post(c, { ...body, placeholder: '<{type}/{TYPE}>' })
  t.equal(res.body.redacted, '<name/NAME>: <email/EMAIL>')
  res = await cap.post(c, { ...body, placeholder: '$& ***' })
  t.equal(res.body.redacted, '$& ***: $& ***')
  res = await cap.post(c, { ...body, placeholder: '' })
  t.equal(res.body.redacted, ': ')
})

t.test('an entity type outside the list (twice) is a free 502', async (t) => {
  cap.reply({ entities: [{ type: 'password', text: 'hunter2' }] })
  await cap.expectRefused(t, { text: 'pw hunter2' }, { status: 502, code: 'inference_failed', why: 'type "password"' })
})

capabilitySuite(t, cap, {
  badInput: [
    ['no text', {}],
    ['empty text', { text: '' }],
    ['text too long', { text: 'x'.repeat(500_001) }],
    ['unknown type', { text, types: ['password'] }],
    ['empty types', { text, types: [] }],
    ['duplicate types', { text, types: ['email', 'email'] }],
    ['placeholder too long', { text, placeholder: 'x'.repeat(101) }],
    ['placeholder not a string', { text, placeholder: 1 }],
    ['unknown property', { text, mode: 'mask' }],
  ],
})

t.test('through the fake OpenAI-compatible server', async (t) => {
  await cap.useFake({ text: () => ({ entities: [{ type: 'name', text: 'Jane Doe' }] }) })
  const call = await cap.call({ text: 'Call Jane Doe at 555-123-4567 or jane@example.com.' })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    redacted: 'Call [REDACTED:NAME] at [REDACTED:PHONE] or [REDACTED:EMAIL].',
    entities: [
      { type: 'name', text: 'Jane Doe', start: 5, end: 13 },
      { type: 'phone', text: '555-123-4567', start: 17, end: 29 },
      { type: 'email', text: 'jane@example.com', start: 33, end: 49 },
    ],
    entityCount: 3,
    usage: { credits: 3, balanceRemaining: 7, livemode: true },
  })
})
