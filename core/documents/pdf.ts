// PDF text extraction with pdf.js (unpdf's serverless build), inside a decoder process (sandbox-child.ts), after
// scanPdf has checked the streams. Hardened: no evaluation of embedded code (CVE-2024-4367), no fonts, CMaps,
// wasm or anything else fetched, no XFA, no scripting; pages and characters are counted as they are read.
import { getResolvedPDFJS } from 'unpdf'
import type { PageRanges } from './pages.ts'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'
import { scanPdf } from './scan.ts'

/** What this module uses of pdf.js: unpdf's declarations name pdf.js types it does not ship. */
interface PdfDocument {
  numPages: number
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: Array<{ str?: string; hasEOL?: boolean }> }>; cleanup(): void }>
}
interface LoadingTask {
  promise: Promise<PdfDocument>
  destroy(): Promise<void>
}

const UNLIMITED: DocumentBudgets = {
  maxDecompressedBytes: Number.MAX_SAFE_INTEGER,
  maxPages: Number.MAX_SAFE_INTEGER,
  maxObjects: Number.MAX_SAFE_INTEGER,
  maxCharacters: Number.MAX_SAFE_INTEGER,
  maxNesting: Number.MAX_SAFE_INTEGER,
  maxImagePixels: Number.MAX_SAFE_INTEGER,
}

const PAGES_AT_ONCE = 16

async function pageText(pdf: PdfDocument, n: number): Promise<string> {
  const page = await pdf.getPage(n)
  const { items } = await page.getTextContent()
  page.cleanup()
  return items
    .filter((item) => item.str != null)
    .map((item) => item.str! + (item.hasEOL ? '\n' : ''))
    .join('')
}

/**
 * Text of each page, in order (one entry per page; '' for a page without a text layer, and for a page outside
 * `only` when given: those are not read).
 */
export async function extractPdfText(
  bytes: Uint8Array,
  budgets: DocumentBudgets = UNLIMITED,
  only?: PageRanges,
): Promise<{ pages: string[] }> {
  await scanPdf(bytes, budgets)
  const pdfjs = (await getResolvedPDFJS()) as unknown as { getDocument(options: object): LoadingTask }
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes), // pdf.js detaches the buffer it is given: a copy keeps the caller's bytes
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    stopAtErrors: false,
    verbosity: 0,
  })
  try {
    let pdf: PdfDocument
    try {
      pdf = await task.promise
    } catch (err) {
      if ((err as Error | undefined)?.name === 'PasswordException') {
        throw new DocumentRefusal('document_encrypted', 'the PDF is password-protected: send it without the password')
      }
      throw err
    }
    if (pdf.numPages > budgets.maxPages) {
      throw new DocumentRefusal('document_too_complex', `the PDF has ${pdf.numPages} pages; the limit is ${budgets.maxPages}`)
    }
    // Pages in groups: pdf.js answers each through its own message queue, so asking for several at once
    // costs a fraction of asking one by one; the character budget is checked after each group.
    const pages: string[] = []
    let characters = 0
    for (let first = 1; first <= pdf.numPages; first += PAGES_AT_ONCE) {
      const numbers = Array.from({ length: Math.min(PAGES_AT_ONCE, pdf.numPages - first + 1) }, (_, i) => first + i)
      const wanted = (n: number) => !only || only.some(([a, b]) => a <= n && n <= b)
      const texts = await Promise.all(numbers.map((n) => (wanted(n) ? pageText(pdf, n) : Promise.resolve(''))))
      for (const text of texts) characters += text.length
      if (characters > budgets.maxCharacters) {
        throw new DocumentRefusal('document_too_complex', `the PDF has more than ${budgets.maxCharacters} characters of text (the limit)`)
      }
      pages.push(...texts)
    }
    return { pages }
  } catch (err) {
    if (err instanceof DocumentRefusal) throw err
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new DocumentRefusal('document_too_complex', 'the PDF nests its objects too deeply to read')
    }
    throw new DocumentRefusal('document_unreadable', 'the PDF could not be read (it is damaged or not a PDF)')
  } finally {
    await task.destroy()
  }
}
