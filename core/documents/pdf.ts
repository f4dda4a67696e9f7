// PDF text extraction with unpdf (serverless pdf.js build). On Node 24 it needs no polyfill from us:
// the bundled pdf.js installs its own Promise.withResolvers / Promise.try / Map#getOrInsertComputed shims.
import { extractText, getDocumentProxy } from 'unpdf'

/** What this module uses of pdf.js's document: unpdf's declarations name pdf.js types it does not ship. */
interface PdfDocument {
  destroy(): Promise<void>
}

/** Text of each page, in order (one entry per page; '' for a page without a text layer). */
export async function extractPdfText(bytes: Uint8Array): Promise<{ pages: string[] }> {
  let pdf: PdfDocument
  try {
    // pdf.js detaches the buffer it is given: pass a copy so the caller can still send the bytes on.
    // No eval in font parsing (defence in depth, cf. CVE-2024-4367); no console warnings for odd files.
    pdf = (await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0 })) as PdfDocument
  } catch (err) {
    const name = (err as Error | undefined)?.name
    throw new Error(name === 'PasswordException' ? 'the PDF is password-protected' : 'the PDF could not be read', { cause: err })
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false })
    return { pages: text }
  } catch (err) {
    throw new Error('the PDF could not be read', { cause: err })
  } finally {
    await pdf.destroy()
  }
}
