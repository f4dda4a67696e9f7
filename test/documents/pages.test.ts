// Page ranges (issue 27): `pages` on a document endpoint reads, sends and prices only those pages, and citations
// keep the original page numbers. Through the HTTP API, a logging fake OpenAI server, PDFs built here.
import t from 'tap'
import parse from '../../capabilities/parse/manifest.ts'
import { capabilityHarness } from '../helpers/capability.ts'
import type { FakeTextRequest } from '../../devkit/fake-openai.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'

const pageText = (n: number) => `Folio ${n} of the bundle: Invoice INV-${n}00 from Vendor${n} Ltd`
const tenPages = {
  data: plainPdf(...Array.from({ length: 10 }, (_, i) => pageText(i + 1))).toString('base64'),
  mimeType: 'application/pdf',
}

/** A parse answer quoting page 3 without saying which page it is on: code finds the page. */
const answer = {
  docType: 'invoice',
  party: 'Vendor3 Ltd',
  documentNumber: 'INV-300',
  date: null,
  totalAmount: null,
  currency: null,
  support: [
    { field: 'party', quote: 'Vendor3 Ltd', page: null, confidence: 0.9 },
    { field: 'documentNumber', quote: 'Invoice INV-300', page: null, confidence: 0.9 },
  ],
  lineItems: [],
  fields: [],
}

const cap = await capabilityHarness(t, parse, { funds: 100 })

t.test('pages "2-3" of a 10-page PDF: only pages 2 and 3 reach the model, under their own numbers', async (t) => {
  const seen: FakeTextRequest[] = []
  await cap.useFake({
    text: (req) => {
      seen.push(req)
      return answer
    },
  })
  const call = await cap.call({ file: tenPages, pages: '2-3' })
  cap.expectCharged(t, call, 10)
  t.equal(seen.length, 1, 'one model request')
  const prompt = seen[0]!.prompt
  t.match(prompt, `--- page 2 ---\n${pageText(2)}`)
  t.match(prompt, `--- page 3 ---\n${pageText(3)}`)
  for (const n of [1, 4, 5, 6, 7, 8, 9, 10]) t.notOk(prompt.includes(`Vendor${n} Ltd`), `page ${n} is not sent`)
  t.notOk(prompt.includes('--- page 1 ---'), 'no marker for an unselected page')
  t.same(seen[0]!.files, [], 'the whole file is not sent')
  t.same(call.res.body.grounding.documentNumber.evidence, { page: 3, quote: 'Invoice INV-300' }, 'page 3 stays page 3')
  t.same(call.res.body.grounding.party.evidence.page, 3)
})

t.test('a single page keeps its number, and text documents are paged at form feeds', async (t) => {
  const seen: FakeTextRequest[] = []
  await cap.useFake({
    text: (req) => {
      seen.push(req)
      return answer
    },
  })
  const text = [1, 2, 3, 4].map(pageText).join('\f')
  const call = await cap.call({ text, pages: '3' })
  cap.expectCharged(t, call, 10)
  t.match(seen[0]!.prompt, `--- page 3 ---\n${pageText(3)}`)
  for (const n of [1, 2, 4]) t.notOk(seen[0]!.prompt.includes(`Vendor${n} Ltd`), `page ${n} is not sent`)
  t.equal(call.res.body.grounding.documentNumber.evidence.page, 3)

  const pdfCall = await cap.call({ file: tenPages, pages: '7, 9-10,7' })
  cap.expectCharged(t, pdfCall, 10)
  t.match(seen[1]!.prompt, /--- page 7 ---[^]*--- page 9 ---[^]*--- page 10 ---/)
  t.notOk(seen[1]!.prompt.includes('Vendor8 Ltd'))
})

t.test('bad ranges are 400 invalid_request before any model call, and free', async (t) => {
  cap.forbidModel(t)
  await cap.expectRefused(t, { file: tenPages, pages: '0' }, { why: 'page 0' })
  await cap.expectRefused(t, { file: tenPages, pages: 'a-b' }, { why: 'not numbers' })
  await cap.expectRefused(t, { file: tenPages, pages: '1,,2' }, { why: 'empty part' })
  await cap.expectRefused(t, { file: tenPages, pages: '1,'.repeat(32) + '1' }, { why: '65 characters' })
  await cap.expectRefused(t, { file: tenPages, pages: '5-3' }, { why: 'backwards', message: /5-3 runs backwards/ })
  const out = await cap.expectRefused(t, { file: tenPages, pages: '2-3,11' }, { why: 'past the end', message: /page 11 .*has 10 pages/ })
  t.equal(out.res.body.error.details[0].path, '/pages')
  await cap.expectRefused(t, { text: 'one\ftwo', pages: '3' }, { why: 'text past the end', message: /has 2 pages/ })
  const customer = await cap.customer(100)
  const dry = await cap.post(customer, { file: tenPages, pages: '9-12' }, { 'service-dry-run': '1' })
  t.match(dry.body, { dryRun: true, liveStatus: 400, wouldCharge: 0, error: { code: 'invalid_request', message: /has 10 pages/ } })
  await cap.expectRefused(t, { text: 'one\f \ftwo', pages: '2' }, { status: 422, code: 'unprocessable', why: 'a blank page' })
})
