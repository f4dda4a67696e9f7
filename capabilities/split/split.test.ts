import t from 'tap'
import { bundle } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { BLANK, CONTINUES, MAX_LEADING_PAGES, STARTS, modelSplit } from './handler.ts'
import manifest from './manifest.ts'

const summaries = ['Invoice for printing services, 1325.00 USD due.', 'Asks to move the poster delivery to September 9.']
const [invoice, letter] = bundle.documents.map(({ pageStart: _s, pageEnd: _e, ...info }, i) => ({ ...info, summary: summaries[i]! }))
const starts = (info: object) => ({ role: STARTS, ...info })
const continues = { role: CONTINUES }
const blank = { role: BLANK }
/** The model's answer: the first document's page, that document, and a role for each later page. */
const answer = (firstPage: number, firstDocument: object, ...laterPages: object[]) => ({ bundle: { firstPage, firstDocument, laterPages } })
const good = () => answer(1, invoice!, continues, starts(letter!))
const expected = bundle.documents.map((d, i) => ({ ...d, summary: summaries[i]! }))

// Each model call takes the next answer given to cap.reply(); the last one repeats. A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 20 })

t.test('the 3-page bundle PDF: invoice 1-2, letter 3, documentCount from the array', async (t) => {
  cap.reply(good())
  const call = await cap.call({ file: pdf('bundle') })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.documents, expected)
  t.equal(res.body.documentCount, 2)
  t.equal(res.body.pageCount, bundle.pageCount)
  t.same(res.body.unassignedPages, [])
  t.same(res.body.warnings, [])
})

t.test('page roles: separator pages before and between documents are unassigned; a blank page inside one belongs to it', async (t) => {
  const c = await cap.customer(40)
  cap.reply(answer(2, { ...letter!, date: '26 Aug 2024', docType: ' Letter ' }, blank))
  const leading = await cap.post(c, { file: pdf('bundle') })
  t.equal(leading.status, 200, leading.text)
  t.same(
    leading.body.documents.map((d: any) => [d.docType, d.pageStart, d.pageEnd, d.date]),
    [['letter', 2, 2, '2024-08-26']],
  )
  t.same(leading.body.unassignedPages, [1, 3], 'the page before the first document and the trailing blank page')

  cap.reply(answer(1, { ...invoice!, date: 'soon', party: '' }, blank, starts(letter!)))
  const between = await cap.post(c, { file: pdf('bundle') })
  t.same(
    between.body.documents.map((d: any) => [d.docType, d.pageStart, d.pageEnd, d.date, d.party]),
    [
      ['invoice', 1, 1, undefined, undefined], // unknown: left out
      ['letter', 3, 3, bundle.letter.date, bundle.letter.from],
    ],
  )
  t.same(between.body.unassignedPages, [2])
  t.match(between.body.warnings.join('\n'), /documents\[0\]\.date: "soon" is not a date/)

  cap.reply(answer(1, invoice!, blank, continues))
  const inside = await cap.post(c, { file: pdf('bundle') })
  t.same(
    inside.body.documents.map((d: any) => [d.pageStart, d.pageEnd]),
    [[1, 3]],
  )
  t.same(inside.body.unassignedPages, [])
  t.equal(cap.prompts.length, 1, 'one model call each')
})

t.test('the answer schema states the ranges: a role for exactly each later page, so no overlap can be written', async (t) => {
  const fake = await cap.useFake({ text: () => good() })
  const call = await cap.call({ file: pdf('bundle') }, { funds: 10 })
  cap.expectCharged(t, call)
  const schema = fake.requests[0]!.body.text.format.schema
  const branches = schema.properties.bundle.anyOf
  t.same(
    branches.map((b: any) => [
      b.properties.firstPage.minimum,
      b.properties.firstPage.maximum,
      b.properties.laterPages.minItems,
      b.properties.laterPages.maxItems,
    ]),
    [
      [1, 1, 2, 2],
      [2, 2, 1, 1],
      [3, 3, 0, 0],
    ],
    'one branch per first page, with exactly the pages after it',
  )
  const long = modelSplit(40).properties.bundle.anyOf as any[]
  t.equal(long.length, MAX_LEADING_PAGES + 1, 'a long bundle: the first document starts within the first 10 pages')
  t.match(long.at(-1), { properties: { firstPage: { minimum: 10 }, laterPages: { minItems: 30, maxItems: 30 } } })
})

t.test(
  'an answer outside the schema (a role too many, a page out of the bundle) is asked once more, then inference_failed, free',
  async (t) => {
    const c = await cap.customer()
    cap.reply(answer(1, invoice!, continues, continues, starts(letter!)), good())
    const fixed = await cap.post(c, { file: pdf('bundle') })
    t.equal(fixed.status, 200, fixed.text)
    t.equal(cap.prompts.length, 2, 'the bad answer was sent back once')
    for (const bad of [answer(1, invoice!, continues), answer(4, invoice!), answer(0, invoice!, continues, continues, continues)]) {
      cap.reply(bad)
      await cap.expectRefused(t, { file: pdf('bundle') }, { customer: c, status: 502, code: 'inference_failed', why: JSON.stringify(bad) })
      t.equal(cap.prompts.length, 2)
    }
    t.match(await cap.app.ledger(c.accountId), { balance: 10, reserved: 0 }, 'only the repaired call was charged')
  },
)

t.test('text input: pages at form feeds, one page without; a one-page document holds one document', async (t) => {
  const c = await cap.customer(50)
  cap.reply(answer(1, letter!, starts(invoice!), continues))
  const res = await cap.post(c, { text: bundle.toPages().join('\f') })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.pageCount, 3)
  t.same(
    res.body.documents.map((d: any) => [d.pageStart, d.pageEnd]),
    [
      [1, 1],
      [2, 3],
    ],
  )
  cap.reply(answer(1, letter!))
  const one = await cap.post(c, { text: bundle.toText() })
  t.equal(one.status, 200, one.text)
  t.equal(one.body.pageCount, 1)
  t.equal(one.body.documentCount, 1)
  cap.reply(answer(1, letter!, starts(invoice!)))
  const two = await cap.post(c, { text: bundle.toText() })
  t.equal(two.status, 502, 'a one-page bundle has no later page')
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { fileUrl: 'not a url' },
    { text: 'a', fileUrl: 'https://example.com/a.pdf' },
    { file: { data: 'YQ==', mimeType: 'application/pdf', name: 'x' } },
    { text: 'a', async: 'yes' },
  ],
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply(good())
  const { res, customer } = await cap.call({ file: pdf('bundle'), async: true }, { funds: 25 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(job.result.documents, expected)
  t.equal(job.result.documentCount, 2)
  t.same(job.result.usage, { credits: 10, balanceRemaining: 15, livemode: true })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await cap.useFake({ text: () => good() })
  const call = await cap.call({ file: pdf('bundle') }, { funds: 10 })
  cap.expectCharged(t, call)
  t.match(call.res.body, {
    documentCount: 2,
    pageCount: 3,
    documents: [
      { docType: 'invoice', pageStart: 1, pageEnd: 2 },
      { docType: 'letter', pageStart: 3, pageEnd: 3 },
    ],
  })
  const sent = JSON.stringify(fake.requests[0]?.body)
  t.ok(sent.includes('--- page 3 ---') && sent.includes('The bundle has 3 pages'), 'the model saw the pages')
})
