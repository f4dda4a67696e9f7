// The stream scan counts exactly what each expanding filter decodes to: a document right at the budget is read
// (by pdf.js, with the same text), one byte over it is refused before pdf.js sees it.
import t from 'tap'
import { loadConfig } from '../../core/config.ts'
import { extractPdfText } from '../../core/documents/pdf.ts'
import { scanPdf } from '../../core/documents/scan.ts'
import * as hostile from '../../devkit/fixtures/hostile.ts'

const limits = loadConfig({}).documents
const FILTERS: hostile.Filter[] = ['LZW', 'RunLength', 'ASCIIHex+Flate', 'ASCII85+Flate']
const visible = 'expanding filter'
// The content stream: the text operators, then the padding.
const decodedSize = (padding: number) => `BT /F1 12 Tf 72 720 Td (${visible}) Tj ET`.length + padding

for (const filter of FILTERS) {
  t.test(`${filter}: counted exactly, read at the budget, refused one byte under it`, async (t) => {
    const padding = 300_000
    const pdf = hostile.filteredPdf(filter, visible, padding)
    const exact = decodedSize(padding)
    await scanPdf(pdf, { ...limits, maxDecompressedBytes: exact })
    await t.rejects(scanPdf(pdf, { ...limits, maxDecompressedBytes: exact - 1 }), {
      code: 'document_too_complex',
      message: /expand to more than/,
    })
    const { pages } = await extractPdfText(pdf, { ...limits, maxDecompressedBytes: exact })
    t.equal(pages[0]!.trim(), visible, 'pdf.js decodes the same stream to the same text')
  })
}

t.test('a bomb behind each filter stops at the budget', async (t) => {
  const budget = { ...limits, maxDecompressedBytes: 1024 * 1024 }
  for (const filter of FILTERS) {
    await t.rejects(scanPdf(hostile.filteredPdf(filter, 'bomb', 8 * 1024 * 1024), budget), { code: 'document_too_complex' }, filter)
  }
})

t.test('objects are counted, also those packed in object streams', async (t) => {
  const pdf = hostile.selfReferringObjectStream() // 6 numbered objects, one of them an object stream of 1
  await scanPdf(pdf, { ...limits, maxObjects: 7 })
  await t.rejects(scanPdf(pdf, { ...limits, maxObjects: 6 }), {
    code: 'document_too_complex',
    message: 'the document has 7 objects; the limit is 6',
  })
})

t.test('streams that never end are read a bounded number of times, not once per stream', async (t) => {
  // 500 streams whose ASCII85, LZW and RunLength data run on to the end of a 4 MB file: read once per stream,
  // that is 1 GB of decoding (minutes); the scan stops once their filters have read 4× the file.
  await t.rejects(scanPdf(hostile.unterminatedStreams(500, 4_000_000), limits), {
    code: 'document_too_complex',
    message: /do not end where they should/,
  })
  // A few such streams in a file are read to its end each, and the file is still read.
  await scanPdf(hostile.unterminatedStreams(3, 100_000), limits)
  // Many well-formed streams are each read once.
  const many = hostile.manySmallBombs(2_000, 100)
  await scanPdf(many, limits)
})
