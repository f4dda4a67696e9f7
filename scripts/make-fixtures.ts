// Renders the known documents of devkit/fixtures/documents.ts to devkit/fixtures/pdf/*.pdf, one PDF page per
// logical page, plus a PDF without a text layer. Run: npx tsx scripts/make-fixtures.ts
// Dates are fixed so re-running gives byte-identical files.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PDFDocument, StandardFonts, rgb, type PDFFont } from 'pdf-lib'
import { allDocuments, imageOnlyPdfName } from '../devkit/fixtures/documents.ts'

const OUT = join(dirname(fileURLToPath(import.meta.url)), '../devkit/fixtures/pdf')
const FIXED_DATE = new Date('2024-01-01T00:00:00Z')
const [W, H, M, SIZE, LEAD] = [612, 792, 56, 10, 14] // US Letter, margins, font size, line height

function wrap(line: string, font: PDFFont, max: number): string[] {
  const out: string[] = []
  let cur = ''
  for (const word of line.split(' ')) {
    const next = cur ? `${cur} ${word}` : word
    if (cur && font.widthOfTextAtSize(next, SIZE) > max) {
      out.push(cur)
      cur = word
    } else cur = next
  }
  return [...out, cur]
}

async function newDoc(title: string) {
  const pdf = await PDFDocument.create()
  pdf.setTitle(title)
  pdf.setProducer('make-fixtures')
  pdf.setCreator('make-fixtures')
  pdf.setCreationDate(FIXED_DATE)
  pdf.setModificationDate(FIXED_DATE)
  return pdf
}

async function renderText(name: string, pages: string[]): Promise<Uint8Array> {
  const pdf = await newDoc(name)
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (const text of pages) {
    const page = pdf.addPage([W, H])
    let y = H - M
    for (const line of text.split('\n').flatMap((l) => wrap(l, font, W - 2 * M))) {
      if (y < M) throw new Error(`${name}: page overflows; split it into more logical pages`)
      if (line) page.drawText(line, { x: M, y, size: SIZE, font })
      y -= LEAD
    }
  }
  return pdf.save({ useObjectStreams: false })
}

// A "scanned" page: shapes only, so pdf.js finds no text and callers must use a vision model.
async function renderImageOnly(): Promise<Uint8Array> {
  const pdf = await newDoc(imageOnlyPdfName)
  const page = pdf.addPage([W, H])
  page.drawRectangle({
    x: M,
    y: H - 200,
    width: W - 2 * M,
    height: 120,
    color: rgb(0.85, 0.85, 0.85),
    borderColor: rgb(0, 0, 0),
    borderWidth: 1,
  })
  for (let i = 0; i < 12; i++)
    page.drawRectangle({ x: M, y: H - 240 - i * 20, width: 200 + ((i * 53) % 260), height: 8, color: rgb(0.2, 0.2, 0.2) })
  return pdf.save({ useObjectStreams: false })
}

mkdirSync(OUT, { recursive: true })
for (const d of allDocuments) writeFileSync(join(OUT, `${d.file}.pdf`), await renderText(d.file, d.toPages()))
writeFileSync(join(OUT, `${imageOnlyPdfName}.pdf`), await renderImageOnly())
console.log(`wrote ${allDocuments.length + 1} PDFs to ${OUT}`)
