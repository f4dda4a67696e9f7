import t from 'tap'
import { bundle } from '../../test/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

const summaries = ['Invoice for printing services, 1325.00 USD due.', 'Asks to move the poster delivery to September 9.']
const good = () => ({ documents: bundle.documents.map((d, i) => ({ ...d, summary: summaries[i]! })) })
const withRanges = (...ranges: Array<[number, number]>) => ({
  documents: ranges.map(([pageStart, pageEnd], i) => ({
    docType: 'letter',
    title: `Doc ${i + 1}`,
    pageStart,
    pageEnd,
    party: null,
    date: null,
    summary: 'x',
  })),
})

// Each model call takes the next answer given to cap.reply(); the last one repeats. A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 20 })

t.test('the 3-page bundle PDF: invoice 1-2, letter 3, documentCount from the array', async (t) => {
  cap.reply(good())
  const call = await cap.call({ file: pdf('bundle') })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(res.body.documents, good().documents)
  t.equal(res.body.documentCount, 2)
  t.equal(res.body.pageCount, bundle.pageCount)
  t.same(res.body.unassignedPages, [])
  t.same(res.body.warnings, [])
})

t.test('out of order: sorted by page; dates normalised; gaps listed', async (t) => {
  const [inv, letter] = good().documents
  cap.reply({
    documents: [
      { ...letter!, date: '26 Aug 2024', docType: ' Letter ' },
      { ...inv!, pageEnd: 1, date: 'soon', party: '' },
    ],
  })
  const { res } = await cap.call({ file: pdf('bundle') })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.documents.map((d: any) => [d.docType, d.pageStart, d.pageEnd, d.date, d.party]),
    [
      ['invoice', 1, 1, undefined, undefined], // unknown: left out
      ['letter', 3, 3, '2024-08-26', bundle.letter.from],
    ],
  )
  t.equal(res.body.documentCount, 2)
  t.same(res.body.unassignedPages, [2])
  t.match(res.body.warnings.join('\n'), /documents\[0\]\.date: "soon" is not a date/)
  t.equal(cap.prompts.length, 1, 'ordering and gaps need no second call')
})

t.test('overlapping or out-of-range pages: asked once more, then inference_failed, free', async (t) => {
  const c = await cap.customer()
  cap.reply(withRanges([1, 2], [2, 3]), withRanges([1, 2], [3, 3]))
  const fixed = await cap.post(c, { file: pdf('bundle') })
  t.equal(fixed.status, 200, fixed.text)
  t.same(
    fixed.body.documents.map((d: any) => [d.pageStart, d.pageEnd]),
    [
      [1, 2],
      [3, 3],
    ],
  )
  t.equal(cap.prompts.length, 2, 'the overlap was sent back once')

  for (const bad of [withRanges([1, 2], [2, 3]), withRanges([1, 4]), withRanges([0, 1], [2, 3]), withRanges([3, 1])]) {
    cap.reply(bad)
    await cap.expectRefused(t, { file: pdf('bundle') }, { customer: c, status: 502, code: 'inference_failed', why: JSON.stringify(bad) })
    t.equal(cap.prompts.length, 2)
  }
  t.match(await cap.app.ledger(c.accountId), { balance: 10, reserved: 0 }, 'only the repaired call was charged')
})

t.test('text input: pages at form feeds, one page without; a one-page document holds one document', async (t) => {
  const c = await cap.customer(50)
  cap.reply(withRanges([1, 1], [2, 3]))
  const res = await cap.post(c, { text: bundle.toPages().join('\f') })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.pageCount, 3)

  cap.reply(withRanges([1, 1]))
  const one = await cap.post(c, { text: bundle.toText() })
  t.equal(one.status, 200, one.text)
  t.equal(one.body.pageCount, 1)
  t.equal(one.body.documentCount, 1)

  cap.reply(withRanges([1, 1], [1, 1]))
  const two = await cap.post(c, { text: bundle.toText() })
  t.equal(two.status, 502, 'two documents on one page cannot be expressed as page ranges')

  cap.reply({ documents: [] })
  const none = await cap.post(c, { text: bundle.toText() })
  t.equal(none.status, 502, 'no documents at all is no answer')
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  for (const body of [
    {},
    { fileUrl: 'not a url' },
    { text: 'a', fileUrl: 'https://example.com/a.pdf' },
    { file: { data: 'YQ==', mimeType: 'application/pdf', name: 'x' } },
    { text: 'a', async: 'yes' },
  ]) {
    await cap.expectRefused(t, body, { funds: 10, why: JSON.stringify(body) })
  }
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply(good())
  const { res, customer } = await cap.call({ file: pdf('bundle'), async: true }, { funds: 25 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(job.result.documents, good().documents)
  t.equal(job.result.documentCount, 2)
  t.same(job.result.usage, { credits: 10, balanceRemaining: 15 })
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
