// `npx tsx scripts/make-scanned-fixture.ts`: devkit/fixtures/pdf/scanned-invoice.pdf, an image-only PDF (no text
// layer, as a scanner makes it) of devkit/fixtures/scanned-invoice.html: a French invoice, slightly rotated, day-first
// dates and decimal commas. Rendered by the Debian chromium (headless screenshot), embedded by pdf-lib.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PDFDocument } from 'pdf-lib'

const html = fileURLToPath(new URL('../devkit/fixtures/scanned-invoice.html', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'scan-'))
try {
  const png = join(dir, 'page.png')
  execFileSync(
    '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      `--user-data-dir=${join(dir, 'profile')}`,
      '--hide-scrollbars',
      '--window-size=1240,1754',
      `--screenshot=${png}`,
      `file://${html}`,
    ],
    { stdio: 'ignore' },
  )
  const pdf = await PDFDocument.create()
  pdf.setCreationDate(new Date('2024-01-01T00:00:00Z'))
  pdf.setModificationDate(new Date('2024-01-01T00:00:00Z'))
  const image = await pdf.embedPng(readFileSync(png))
  const page = pdf.addPage([595.28, 841.89]) // A4
  page.drawImage(image, { x: 0, y: 0, width: 595.28, height: 841.89 })
  writeFileSync(new URL('../devkit/fixtures/pdf/scanned-invoice.pdf', import.meta.url), await pdf.save({ useObjectStreams: false }))
  console.log('wrote devkit/fixtures/pdf/scanned-invoice.pdf')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
