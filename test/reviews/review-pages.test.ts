// A review's PDF pages as images (C21): a scan (a PDF without a text layer) gives the reviewer nothing to read but
// the page itself, rendered in the decoder pool when the dashboard asks for it. Only the review's own account sees
// it, only the pages the call read, a hostile PDF is refused without a 500 while the server keeps serving, and the
// rendering is drawn on the account's unpaid decoder time (429 once spent).
import { deflateSync } from 'node:zlib'
import t, { type Test } from 'tap'
import parse from '../../capabilities/parse/manifest.ts'
import { groundingCase } from '../../capabilities/parse/eval.ts'
import { PAGE_IMAGE_WIDTH } from '../../core/documents/pdf.ts'
import { pdfFile } from '../../devkit/fixture-files.ts'
import { imageOnlyPdfName } from '../../devkit/fixtures/documents.ts'
import * as hostile from '../../devkit/fixtures/hostile.ts'
import { capabilityHarness, type Customer } from '../helpers/capability.ts'
import { signedInMember } from '../helpers/teams.ts'

const MiB = 1024 * 1024
const cap = await capabilityHarness(t, parse, {
  funds: 1000,
  // Small, so that the bombs below meet their limit quickly; the scan and the bundle are far inside both.
  env: { DOCUMENT_MAX_DECOMPRESSED_BYTES: String(4 * MiB), DOCUMENT_TIMEOUT_MS: '8000' },
})
const { app } = cap

/** A review of `body` (parse, mode ungrounded, the invoice's answer: nothing of it is in a scan). */
async function reviewOf(c: Customer, body: Record<string, unknown>): Promise<string> {
  await app.call('/v1/review-settings', { key: c.key, method: 'PUT', body: { mode: 'ungrounded' } })
  cap.reply(groundingCase.answer)
  const res = await cap.post(c, body)
  if (res.status !== 200 || !res.body.review) throw new Error(`no review: ${res.status} ${res.text.slice(0, 300)}`)
  return (res.body.review as { id: string }).id
}

/** The dashboard's answer to `path` as `member`, with its bytes. */
async function get(member: { cookies: Map<string, string> }, path: string) {
  const res = await fetch(app.url + path, { headers: { cookie: `dash_session=${member.cookies.get('dash_session')}` }, redirect: 'manual' })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

/** A PNG's size from its header (IHDR), after checking its signature. */
function pngSize(t: Test, png: Buffer): { width: number; height: number } {
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG')
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
}

const owner = await cap.customer()
const scanReview = await reviewOf(owner, { file: pdfFile(imageOnlyPdfName) })
const developer = await signedInMember(app, owner.accountId, 'developer')

t.test('a scan’s review serves its page as a PNG, lazy-loaded on the review page, kept by the browser', async (t) => {
  const page = await developer.get(`/dashboard/reviews/${scanReview}`)
  t.equal(page.status, 200)
  const img = /<img[^>]*class="page-image"[^>]*>/.exec(page.text)?.[0] ?? ''
  t.match(img, `src="/dashboard/reviews/${scanReview}/pages/1.png"`, 'the page’s image')
  t.match(img, 'loading="lazy"')
  t.match(img, /alt="Page 1 of the document as an image \(it has no text layer\)"/)
  t.notMatch(page.text, 'No text: the document is an image', 'no longer an empty document')

  const png = await get(developer, `/dashboard/reviews/${scanReview}/pages/1.png`)
  t.equal(png.status, 200, png.status === 200 ? 'the page as an image' : png.bytes.toString().slice(0, 300)) // never the PNG's bytes in the log
  t.equal(png.headers.get('content-type'), 'image/png')
  t.match(png.headers.get('cache-control'), /^private, max-age=\d+$/, 'the browser keeps it: a GET renders once per reviewer')
  const size = pngSize(t, png.bytes)
  t.equal(size.width, PAGE_IMAGE_WIDTH, 'as wide as the bound')
  t.ok(Math.abs(size.height / size.width - 792 / 612) < 0.01, `the page’s proportions (${size.width}×${size.height}, a US Letter page)`)
  const viewer = await signedInMember(app, owner.accountId, 'viewer')
  t.equal((await get(viewer, `/dashboard/reviews/${scanReview}/pages/1.png`)).status, 200, 'a viewer reads reviews, pages included')
})

t.test('another account’s review, a page out of range or not a number, a review without a PDF: 404', async (t) => {
  const other = await cap.customer()
  const stranger = await signedInMember(app, other.accountId, 'owner')
  t.equal((await get(stranger, `/dashboard/reviews/${scanReview}/pages/1.png`)).status, 404, 'another account')
  for (const n of ['0', '2', '01', 'x', '99999999']) {
    t.equal((await get(developer, `/dashboard/reviews/${scanReview}/pages/${n}.png`)).status, 404, `page ${n}`)
  }
  const textReview = await reviewOf(owner, { text: 'A note that states none of the invoice’s values.' })
  t.equal((await get(developer, `/dashboard/reviews/${textReview}/pages/1.png`)).status, 404, 'a text call has no page images')
  t.notMatch((await developer.get(`/dashboard/reviews/${textReview}`)).text, 'page-image', 'and its page shows none')
})

t.test('a call that selected pages: only those are shown', async (t) => {
  const id = await reviewOf(owner, { file: pdfFile('bundle'), pages: '2' })
  const page = await developer.get(`/dashboard/reviews/${id}`)
  t.same(
    [...page.text.matchAll(/class="page-image"[^>]*data-page="(\d+)"/g)].map((m) => m[1]),
    ['2'],
    'the image of page 2 only',
  )
  t.equal((await get(developer, `/dashboard/reviews/${id}/pages/1.png`)).status, 404, 'page 1 was not read by the call')
  const png = await get(developer, `/dashboard/reviews/${id}/pages/2.png`)
  t.equal(png.status, 200)
  t.ok(pngSize(t, png.bytes).width <= PAGE_IMAGE_WIDTH)
})

/** `review`'s document replaced by `pdf`, as if the call had read it (what a review keeps, sealed). */
async function keep(review: string, pdf: Buffer) {
  await app.services.db.sql(`update review_documents set document = ? where review_id = ?`, [
    app.services.secrets.seal(pdf.toString('base64')),
    review,
  ])
}

/** GET `path` with /healthz polled meanwhile; the longest /healthz wait. */
async function whileServing(path: string) {
  let running = true
  let healthzMs = 0
  const poll = (async () => {
    while (running) {
      const started = performance.now()
      await (await fetch(`${app.url}/healthz`)).arrayBuffer()
      healthzMs = Math.max(healthzMs, performance.now() - started)
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  try {
    return { res: await get(developer, path), healthzMs }
  } finally {
    running = false
    await poll
  }
}

const fullPageFill = '0 0 612 792 re f\n'
/** A page whose drawing never ends: a form drawing the page 10 times, drawn 10 times by the next, 7 deep (10⁷ fills). */
function renderBomb(): Buffer {
  const depth = 7
  const forms = Array.from({ length: depth }, (_, i) => {
    const inner = i === 0 ? fullPageFill.repeat(10) : `/X${i} Do\n`.repeat(10)
    const resources = i === 0 ? '' : ` /Resources << /XObject << /X${i} ${4 + i - 1} 0 R >> >>`
    return hostile.stream(deflateSync(inner), ` /Filter /FlateDecode /Type /XObject /Subtype /Form /BBox [0 0 612 792]${resources}`)
  })
  return hostile.buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X${depth} ${4 + depth - 1} 0 R >> >> /Contents ${4 + depth} 0 R >>`,
    ...forms,
    hostile.stream(Buffer.from(`/X${depth} Do`)),
  ])
}

t.test('a hostile PDF is refused by the decoder: 422, never a 500, the server serving meanwhile', async (t) => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['a flate bomb', hostile.flateBomb(16 * MiB), /more than/],
    ['a drawing that never ends', renderBomb(), /longer than 8 s|more than \d+ MiB of memory/],
    ['not a PDF', Buffer.from('%PDF-1.7 nothing else'), /could not be read/],
  ]
  for (const [what, pdf, message] of cases) {
    await keep(scanReview, pdf)
    const { res, healthzMs } = await whileServing(`/dashboard/reviews/${scanReview}/pages/1.png`)
    t.equal(res.status, 422, `${what}: ${res.bytes.toString().slice(0, 200)}`)
    t.match(res.headers.get('content-type'), 'text/html', `${what}: the dashboard’s error page`)
    t.match(res.bytes.toString(), message, `${what}: the page says why`)
    t.ok(healthzMs < 1000, `${what}: /healthz answered within ${healthzMs.toFixed(0)} ms`)
  }
  await keep(scanReview, Buffer.from(pdfFile(imageOnlyPdfName).data, 'base64'))
  t.equal((await get(developer, `/dashboard/reviews/${scanReview}/pages/1.png`)).status, 200, 'the pool renders the next page as usual')
})

t.test('past the account’s unpaid decoder time: 429 with Retry-After, a page that says so', async (t) => {
  const spender = await cap.customer()
  const id = await reviewOf(spender, { file: pdfFile(imageOnlyPdfName) })
  const member = await signedInMember(app, spender.accountId, 'developer')
  // An hour's worth of unpaid decoding spent (as refused calls and dry runs would).
  app.services.sandbox.drawUnpaid({ accountId: spender.accountId, unpaid: false, decoderMs: 3_600_000 })
  const res = await get(member, `/dashboard/reviews/${id}/pages/1.png`)
  t.equal(res.status, 429)
  t.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After')
  t.match(res.bytes.toString(), /document reading for calls that are not charged/)
  t.equal((await get(developer, `/dashboard/reviews/${scanReview}/pages/1.png`)).status, 200, 'another account still has its own')
})
