import { readFileSync } from 'node:fs'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { bundle } from '../../test/fixtures/documents.ts'

const pdf = (name: string) => ({ data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' })

const summaries = ['Invoice for printing services, 1325.00 USD due.', 'Asks to move the poster delivery to September 9.']
const good = () => ({ documents: bundle.documents.map((d, i) => ({ ...d, summary: summaries[i]! })) })
const withRanges = (...ranges: Array<[number, number]>) => ({
  documents: ranges.map(([pageStart, pageEnd], i) => ({ docType: 'letter', title: `Doc ${i + 1}`, pageStart, pageEnd, party: null, date: null, summary: 'x' })),
})

let replies: unknown[] = []
let fallback: () => unknown = good
let calls = 0
const app = await startTestApp(t, {
  worker: true,
  provider: mockProvider(() => {
    calls++
    return replies.length ? replies.shift() : fallback()
  }),
})
const answer = (...r: unknown[]) => {
  replies = r
  calls = 0
}

async function waitForJob(a: TestApp, key: string, id: string) {
  for (let i = 0; i < 200; i++) {
    const r = await a.call(`/v1/jobs/${id}`, { key })
    if (r.body?.status === 'succeeded' || r.body?.status === 'failed') return r.body
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error(`job ${id} did not finish`)
}

t.test('the 3-page bundle PDF: invoice 1-2, letter 3, documentCount from the array', async (t) => {
  answer(good())
  const c = await app.customer(20)
  const res = await app.call('/v1/split', { key: c.key, body: { file: pdf('bundle') } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.documents, good().documents)
  t.equal(res.body.documentCount, 2)
  t.equal(res.body.pageCount, bundle.pageCount)
  t.same(res.body.unassignedPages, [])
  t.same(res.body.warnings, [])
  t.same(res.body.usage, { credits: 10, balanceRemaining: 10 })
})

t.test('out of order: sorted by page; dates normalised; gaps listed', async (t) => {
  const [inv, letter] = good().documents
  answer({ documents: [{ ...letter!, date: '26 Aug 2024', docType: ' Letter ' }, { ...inv!, pageEnd: 1, date: 'soon', party: '' }] })
  const c = await app.customer(20)
  const res = await app.call('/v1/split', { key: c.key, body: { file: pdf('bundle') } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.documents.map((d: any) => [d.docType, d.pageStart, d.pageEnd, d.date, d.party]), [
    ['invoice', 1, 1, null, null],
    ['letter', 3, 3, '2024-08-26', bundle.letter.from],
  ])
  t.equal(res.body.documentCount, 2)
  t.same(res.body.unassignedPages, [2])
  t.match(res.body.warnings.join('\n'), /documents\[0\]\.date: "soon" is not a date/)
  t.equal(calls, 1, 'ordering and gaps need no second call')
})

t.test('overlapping or out-of-range pages: asked once more, then inference_failed, free', async (t) => {
  const c = await app.customer(20)
  answer(withRanges([1, 2], [2, 3]), withRanges([1, 2], [3, 3]))
  const fixed = await app.call('/v1/split', { key: c.key, body: { file: pdf('bundle') } })
  t.equal(fixed.status, 200, fixed.text)
  t.same(fixed.body.documents.map((d: any) => [d.pageStart, d.pageEnd]), [[1, 2], [3, 3]])
  t.equal(calls, 2, 'the overlap was sent back once')

  for (const bad of [withRanges([1, 2], [2, 3]), withRanges([1, 4]), withRanges([0, 1], [2, 3]), withRanges([3, 1])]) {
    answer(bad, bad)
    const res = await app.call('/v1/split', { key: c.key, body: { file: pdf('bundle') } })
    t.equal(res.status, 502, JSON.stringify(bad))
    t.equal(res.body.error.code, 'inference_failed')
    t.equal(calls, 2)
  }
  t.match(await app.ledger(c.accountId), { balance: 10, reserved: 0 }, 'only the repaired call was charged')
})

t.test('text input: pages at form feeds, one page without; a one-page document holds one document', async (t) => {
  const c = await app.customer(50)
  answer(withRanges([1, 1], [2, 3]))
  const res = await app.call('/v1/split', { key: c.key, body: { text: bundle.toPages().join('\f') } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.pageCount, 3)

  answer(withRanges([1, 1]))
  const one = await app.call('/v1/split', { key: c.key, body: { text: bundle.toText() } })
  t.equal(one.status, 200, one.text)
  t.equal(one.body.pageCount, 1)
  t.equal(one.body.documentCount, 1)

  answer(withRanges([1, 1], [1, 1]), withRanges([1, 1], [1, 1]))
  const two = await app.call('/v1/split', { key: c.key, body: { text: bundle.toText() } })
  t.equal(two.status, 502, 'two documents on one page cannot be expressed as page ranges')

  answer({ documents: [] }, { documents: [] })
  const none = await app.call('/v1/split', { key: c.key, body: { text: bundle.toText() } })
  t.equal(none.status, 502, 'no documents at all is no answer')
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  const c = await app.customer(10)
  for (const body of [{}, { fileUrl: 'not a url' }, { text: 'a', fileUrl: 'https://example.com/a.pdf' }, { file: { data: 'YQ==', mimeType: 'application/pdf', name: 'x' } }, { text: 'a', async: 'yes' }]) {
    const res = await app.call('/v1/split', { key: c.key, body })
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body?.error?.code, 'invalid_request')
  }
  t.match(await app.ledger(c.accountId), { balance: 10, reserved: 0 })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  answer(good())
  const c = await app.customer(25)
  const res = await app.call('/v1/split', { key: c.key, body: { file: pdf('bundle'), async: true } })
  t.equal(res.status, 202, res.text)
  const job = await waitForJob(app, c.key, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(job.result.documents, good().documents)
  t.equal(job.result.documentCount, 2)
  t.same(job.result.usage, { credits: 10, balanceRemaining: 15 })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await startFakeOpenAI({ text: () => good() })
  t.teardown(() => fake.close())
  const live = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL) })
  const c = await live.customer(10)
  const res = await live.call('/v1/split', { key: c.key, body: { file: pdf('bundle') } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { documentCount: 2, pageCount: 3, documents: [{ docType: 'invoice', pageStart: 1, pageEnd: 2 }, { docType: 'letter', pageStart: 3, pageEnd: 3 }] })
  t.same(res.body.usage, { credits: 10, balanceRemaining: 0 })
  const sent = JSON.stringify(fake.requests[0]?.body)
  t.ok(sent.includes('--- page 3 ---') && sent.includes('The bundle has 3 pages'), 'the model saw the pages')
})
