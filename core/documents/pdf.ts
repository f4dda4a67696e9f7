// PDF text extraction and page rendering with pdf.js (unpdf's serverless build), inside a decoder process
// (sandbox-child.ts), after scanPdf has checked the streams. Hardened: no evaluation of embedded code
// (CVE-2024-4367), no fonts, CMaps, wasm or anything else fetched, no XFA, no scripting; pages and characters are
// counted as they are read, and a rendered page's size is fixed before pdf.js draws anything.
import { readFile } from 'node:fs/promises'
import { createIsomorphicCanvasFactory, getResolvedPDFJS } from 'unpdf'
import type { PageRanges } from './pages.ts'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'
import { scanPdf } from './scan.ts'

/** What this module uses of pdf.js: unpdf's declarations name pdf.js types it does not ship. */
interface PdfPage {
  getTextContent(): Promise<{ items: Array<{ str?: string; hasEOL?: boolean }> }>
  getViewport(options: { scale: number }): { width: number; height: number }
  render(options: { canvas: unknown; canvasContext: unknown; viewport: unknown }): { promise: Promise<void> }
  cleanup(): void
}
interface PdfDocument {
  numPages: number
  getPage(n: number): Promise<PdfPage>
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
  return withPdf(bytes, budgets, {}, async (pdf) => {
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
  })
}

/** A page image's width (px), and the most height it may have (a page 4× as tall as wide; longer ones are narrower). */
export const PAGE_IMAGE_WIDTH = 1100
const PAGE_IMAGE_MAX_HEIGHT = 4 * PAGE_IMAGE_WIDTH

/** The image size of a page of `width` × `height` points: PAGE_IMAGE_WIDTH wide unless too tall or over `maxPixels`. */
function pageImageSize(width: number, height: number, maxPixels: number): { width: number; height: number } {
  const scale = Math.min(PAGE_IMAGE_WIDTH / width, PAGE_IMAGE_MAX_HEIGHT / height, Math.sqrt(maxPixels / (width * height)))
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) }
}

let canvasFactory: Promise<new () => CanvasFactory> | undefined

interface CanvasFactory {
  create(width: number, height: number): { canvas: { encode(format: 'png'): Promise<Uint8Array> }; context: unknown }
  destroy(drawing: unknown): void
}

/** pdf.js's outlines of the 14 standard fonts, which a PDF may use without embedding them (pdfjs-dist ships them). */
const STANDARD_FONTS = new URL('./standard_fonts/', import.meta.resolve('pdfjs-dist/package.json'))

/**
 * What pdf.js may read besides the document (useWorkerFetch off: it asks this): a standard font's outlines, from
 * the installed files only and under the fixed names pdf.js chooses; nothing else (CMaps, wasm) and nothing fetched.
 */
class StandardFontsOnly {
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    if (kind !== 'standardFontDataUrl' || !/^[A-Za-z0-9-]+\.(?:pfb|ttf)$/.test(filename)) throw new Error(`${kind} is not available`)
    return new Uint8Array(await readFile(new URL(filename, STANDARD_FONTS)))
  }
}

/**
 * Page `n` of a PDF as a PNG, PAGE_IMAGE_WIDTH px wide (less for a long page or one over the pixel budget); images
 * in it of more than `maxImagePixels` pixels are not drawn. A page outside the document is document_unreadable.
 */
export async function renderPdfPage(bytes: Uint8Array, n: number, budgets: DocumentBudgets = UNLIMITED): Promise<Uint8Array> {
  canvasFactory ??= createIsomorphicCanvasFactory(() => import('@napi-rs/canvas')) as Promise<new () => CanvasFactory>
  const CanvasFactory = await canvasFactory
  const drawing = { CanvasFactory, BinaryDataFactory: StandardFontsOnly, maxImageSize: budgets.maxImagePixels }
  return withPdf(bytes, budgets, drawing, async (pdf) => {
    if (!Number.isInteger(n) || n < 1 || n > pdf.numPages) {
      throw new DocumentRefusal('document_unreadable', `the PDF has no page ${n}`)
    }
    const page = await pdf.getPage(n)
    const points = page.getViewport({ scale: 1 })
    if (!(points.width > 0 && points.height > 0)) throw new DocumentRefusal('document_unreadable', `page ${n} has no size`)
    const size = pageImageSize(points.width, points.height, budgets.maxImagePixels)
    const viewport = page.getViewport({ scale: size.width / points.width })
    const factory = new CanvasFactory()
    const drawing = factory.create(size.width, size.height)
    try {
      await page.render({ canvas: drawing.canvas, canvasContext: drawing.context, viewport }).promise
      return await drawing.canvas.encode('png')
    } finally {
      factory.destroy(drawing)
      page.cleanup()
    }
  })
}

/** `use` on the PDF opened by hardened pdf.js (after scanPdf), its failures as refusals, the document destroyed after. */
async function withPdf<T>(bytes: Uint8Array, budgets: DocumentBudgets, extra: object, use: (pdf: PdfDocument) => Promise<T>): Promise<T> {
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
    ...extra,
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
    return await use(pdf)
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
