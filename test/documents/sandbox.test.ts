// The decoder pool's own limits, each with a document that needs it: the hard memory limit (the byte budget
// set out of the way), the wall clock on a CPU-bound document, the bounded queue, and a caller that gives up.
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { loadConfig, type DocumentLimits } from '../../core/config.ts'
import { ApiError } from '../../core/errors.ts'
import { DocumentRefusal } from '../../core/documents/refusal.ts'
import { DocumentSandbox } from '../../core/documents/sandbox.ts'
import * as hostile from '../../devkit/fixtures/hostile.ts'

const MiB = 1024 * 1024
/** A pool closed when `test` ends: no decoder of one test (a replacement it spawned, say) outlives it into the next. */
function sandbox(test: { teardown(fn: () => unknown): void }, limits: Partial<DocumentLimits>): DocumentSandbox {
  const s = new DocumentSandbox({ ...loadConfig({}).documents, ...limits })
  test.teardown(() => s.close())
  return s
}
const pdf = 'application/pdf'

/** This process's decoder processes (Linux /proc). */
function decoders(): number[] {
  const pids: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === process.pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('sandbox-child')) pids.push(Number(d))
    } catch {
      // gone between readdir and read
    }
  }
  return pids
}

t.test('past the memory limit the decoder is killed, the document refused, and the next one decoded', async (t) => {
  // A decoder starts at 60-150 MiB, and past 224 MiB under the full run's coverage instrumentation (a fresh decoder
  // was killed for a one-page PDF there); pdf.js inflates the 384 MiB whole, well past 320.
  const s = sandbox(t, { workers: 1, memoryMiB: 320, maxDecompressedBytes: Number.MAX_SAFE_INTEGER })
  const err = await s.decode(pdf, hostile.flateBomb(384 * MiB)).catch((e: unknown) => e)
  t.ok(err instanceof DocumentRefusal)
  t.equal((err as DocumentRefusal).code, 'document_too_complex')
  t.match((err as DocumentRefusal).message, 'needed more than 320 MiB of memory (the limit)')
  t.same(await s.decode(pdf, hostile.plainPdf('after the kill')), ['after the kill'], 'a fresh decoder takes the next document')
})

t.test('a decoder killed by a document is replaced before the next document arrives', async (t) => {
  const others = new Set(decoders()) // none: each test's pool is closed with it
  const mine = () => decoders().filter((pid) => !others.has(pid))
  // Past the wall clock the decoder is always killed (a bomb under the memory limit may be refused by the
  // decoder itself, which then lives on, depending on where the allocation fails). The memory limit is set high so
  // that no decoder is retired after the first document for its size (under coverage one starts above 224 MiB).
  const s = sandbox(t, { workers: 1, timeoutMs: 1500, maxPages: 1_000_000, memoryMiB: 2048 })
  t.same(await s.decode(pdf, hostile.plainPdf('warm')), ['warm'])
  const [killed] = mine()
  t.ok(killed, 'one decoder is up')
  const err = await s.decode(pdf, hostile.manyPages(50_000)).catch((e: unknown) => e)
  t.equal((err as DocumentRefusal).code, 'document_too_complex')
  // No document is sent meanwhile: the replacement comes up by itself (waits for the process, not a timing).
  let now = mine()
  for (let i = 0; i < 600 && (now.length === 0 || now.includes(killed!)); i++) {
    await sleep(50)
    now = mine()
  }
  t.equal(now.length, 1, 'one decoder again, started without a document waiting')
  t.not(now[0], killed)
  t.same(await s.decode(pdf, hostile.plainPdf('next')), ['next'])
  t.same(mine(), now, 'the replacement took it')
})

t.test('a document that keeps the decoder busy past the wall clock is stopped', async (t) => {
  const s = sandbox(t, { workers: 1, timeoutMs: 1500, maxPages: 1_000_000 })
  t.same(await s.decode(pdf, hostile.plainPdf('warm')), ['warm'], 'a decoder is up (its start is not part of the clock)')
  const started = performance.now()
  const err = await s.decode(pdf, hostile.manyPages(50_000)).catch((e: unknown) => e) // tens of seconds of pdf.js
  t.equal((err as DocumentRefusal).code, 'document_too_complex')
  t.match((err as DocumentRefusal).message, 'took longer than 1.5 s (the limit)')
  t.ok(performance.now() - started < 6500, 'stopped at the limit, not when the document was done')
})

t.test('a full queue is 503 with Retry-After; the documents already taken are decoded', async (t) => {
  const s = sandbox(t, { workers: 1, queue: 1 })
  const first = s.decode(pdf, hostile.plainPdf('first'))
  const second = s.decode(pdf, hostile.plainPdf('second'))
  const third = await s.decode(pdf, hostile.plainPdf('third')).catch((e: unknown) => e)
  t.ok(third instanceof ApiError)
  t.equal((third as ApiError).code, 'service_unavailable')
  t.equal((third as ApiError).status, 503)
  t.same((third as ApiError).headers, { 'Retry-After': '2' })
  t.same(await first, ['first'])
  t.same(await second, ['second'])
  const waited = await Promise.all([s.decode(pdf, hostile.plainPdf('a')), s.decode(pdf, hostile.plainPdf('b'), { wait: true })])
  t.same(waited, [['a'], ['b']], 'a job waits for a decoder instead')
})

t.test('a caller that gives up leaves the queue', async (t) => {
  const s = sandbox(t, { workers: 1, queue: 4 })
  const first = s.decode(pdf, hostile.plainPdf('first'))
  const gone = new AbortController()
  const second = s.decode(pdf, hostile.plainPdf('second'), { signal: gone.signal })
  gone.abort(new Error('client went away'))
  await t.rejects(second, { message: 'client went away' })
  t.same(await first, ['first'])
})

t.test("accounts take turns: one account's unpaid work never holds every decoder, and draws on its budget", async (t) => {
  // A budget of 50 ms: the slow document spends it whatever the machine's speed (it takes 0.5-2 s to refuse).
  const s = sandbox(t, { workers: 2, queue: 8, unpaidSecondsPerHour: 0.05 })
  const slow = hostile.unterminatedStreams(500, 4_000_000) // refused as too complex after its scan
  const flooder = { accountId: 'flooder', unpaid: true, decoderMs: 0 }
  const order: string[] = []
  const flood = [1, 2, 3].map((i) =>
    s.decode(pdf, slow, { reader: flooder }).then(
      () => order.push(`flood ${i}`),
      (e: ApiError | DocumentRefusal) => order.push(`flood ${i} ${e.code}`),
    ),
  )
  await sleep(50)
  const paying = { accountId: 'paying', unpaid: false, decoderMs: 0 }
  t.same(await s.decode(pdf, hostile.plainPdf('paid'), { reader: paying }), ['paid'])
  order.push('paid')
  await Promise.all(flood)
  t.equal(order[0], 'paid', "the other account's document took the decoder the flood could not")
  t.ok(paying.decoderMs > 0, 'its decoder time is counted for its reader')
  t.same(order.slice(1), ['flood 1 document_too_complex', 'flood 2 free_decoding_exhausted', 'flood 3 free_decoding_exhausted'])
  const refused = await s.decode(pdf, hostile.plainPdf('more'), { reader: flooder }).catch((e: unknown) => e)
  t.equal((refused as ApiError).status, 429, 'spent: refused before it queues')
  t.ok(Number((refused as ApiError).headers?.['Retry-After']) >= 1, 'with Retry-After')
  t.same(await s.decode(pdf, hostile.plainPdf('live'), { reader: { ...flooder, unpaid: false } }), ['live'], 'its paid work still runs')

  // A live call that ended without a charge draws what its reads took.
  const refusedCall = { accountId: 'refused', unpaid: false, decoderMs: 0 }
  await s.decode(pdf, hostile.plainPdf('read, then refused'), { reader: refusedCall })
  s.drawUnpaid({ ...refusedCall, decoderMs: 2000 })
  const next = await s.decode(pdf, hostile.plainPdf('dry run'), { reader: { ...refusedCall, unpaid: true } }).catch((e: unknown) => e)
  t.equal((next as ApiError).code, 'free_decoding_exhausted')
})

/** One page of `width` × `height` points showing the image `image` (an object body) across the whole page. */
const imagePage = (width: number, height: number, image: Buffer | string) =>
  hostile.buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /XObject << /Im 4 0 R >> >> /Contents 5 0 R >>`,
    image,
    hostile.stream(Buffer.from(`q ${width} 0 0 ${height} 0 0 cm /Im Do Q`)),
  ])
const grey = (width: number, height: number, data: Buffer) =>
  hostile.stream(data, ` /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8`)
const pngSize = (png: Uint8Array) => {
  const b = Buffer.from(png)
  return b.subarray(1, 4).toString() === 'PNG' ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null
}

t.test('a page rendered as a PNG: 1,100 px wide at most, within the pixel budget whatever the page or its images declare', async (t) => {
  const s = sandbox(t, { workers: 1 })
  t.same(pngSize(await s.renderPage(hostile.plainPdf('one', 'two'), 2)), { width: 1100, height: 1423 }, 'a US Letter page, 1,100 px wide')
  t.same(
    pngSize(await s.renderPage(imagePage(612, 7920, grey(2, 2, Buffer.alloc(4))), 1)),
    { width: 340, height: 4400 },
    'a page ten pages long: 4,400 px tall, narrower',
  )
  // 40,000 × 40,000 grey pixels declared (1.6 GB decoded), 4 bytes sent: pdf.js skips an image over the budget.
  const huge = await s.renderPage(imagePage(612, 792, grey(40_000, 40_000, Buffer.alloc(4))), 1)
  t.same(pngSize(huge), { width: 1100, height: 1423 }, 'an image past DOCUMENT_MAX_IMAGE_PIXELS is not drawn, the page is')
  const small = sandbox(t, { workers: 1, maxImagePixels: 10_000 })
  const size = pngSize(await small.renderPage(hostile.plainPdf('one'), 1))!
  t.ok(size.width * size.height <= 10_000, `the page itself within the budget (${size.width}×${size.height})`)
  await t.rejects(s.renderPage(hostile.plainPdf('one'), 2), { code: 'document_unreadable', message: 'the PDF has no page 2' })
  await t.rejects(s.renderPage(hostile.flateBomb(512 * MiB), 1), { code: 'document_too_complex' }, 'scanned before pdf.js, as a decode is')
})
