// Turns a `Doc` (capabilities.md: exactly one of file, fileUrl, text) into bytes + text a capability can use.
// Refusals follow contract C2: malformed input is 400 invalid_request, valid input we cannot use is 422.
import type { FilePart, ImagePart, TextPart } from 'ai'
import { ApiError, type ErrorCode } from '../errors.ts'
import type { Resolver } from '../net/address-guard.ts'
import { FetchError, fetchPublic } from '../net/safe-fetch.ts'
import { decodeBase64, fetchFailureMessage, IMAGE_TYPES, MAX_MEDIA_BYTES, urlProblem } from './media.ts'
import { markPages, parsePageRanges, selectPages, textPageCount, textPages, type PageRanges } from './pages.ts'
import { DocumentRefusal } from './refusal.ts'
import type { DocumentSandbox, Reader, TaskOptions } from './sandbox.ts'
import type { DocumentInput, ResolvedDocument } from './schema.ts'
import { sniffMediaType } from './sniff.ts'

export type DocumentFetcher = (url: string, signal?: AbortSignal) => Promise<{ bytes: Buffer; contentType: string | null }>

export interface ResolveDeps {
  fetch: DocumentFetcher
  /** Where PDFs and images are decoded (never on this event loop); its maxPages bounds a text's pages too. */
  sandbox: Pick<DocumentSandbox, 'decode' | 'budgets'>
  /** Wait for a free decoder instead of 503 when the pool's queue is full (jobs). */
  waitForDecoder?: boolean
  /** Whom the decoders work for (fair turns, the unpaid budget). */
  reader?: Reader
  signal?: AbortSignal
  /** JSON pointer of the Doc object in the request body, for error paths (e.g. '/a' in compare); default '' */
  at?: string
}

export const PAGE_SEPARATOR = '\n\f\n'
// Plain-text files carry no signature; accepted only when declared so, and only if they are real UTF-8.
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/csv', 'text/tab-separated-values'])

/** The production fetcher: SSRF-guarded, with the C12 limits (20 MiB, 20 s, 3 redirects) unless a caller asks for less. */
/** The guarded fetcher the server's settings call for: C12's public addresses unless CALLBACKS_ALLOW_PRIVATE. */
export function serverDocumentFetcher(server: { config: { callbacksAllowPrivate: boolean }; resolver?: Resolver | undefined }) {
  return publicDocumentFetcher({
    allowPrivate: server.config.callbacksAllowPrivate,
    ...(server.resolver ? { resolver: server.resolver } : {}),
  })
}

export function publicDocumentFetcher(opts: { allowPrivate: boolean; resolver?: Resolver }) {
  return (url: string, signal?: AbortSignal, limits: { maxBytes?: number; timeoutMs?: number } = {}) =>
    fetchPublic(url, {
      ...opts,
      maxBytes: limits.maxBytes ?? MAX_MEDIA_BYTES,
      timeoutMs: limits.timeoutMs ?? 20_000,
      maxRedirects: 3,
      ...(signal ? { signal } : {}),
    })
}

export async function resolveDocument(input: DocumentInput, deps: ResolveDeps): Promise<ResolvedDocument> {
  const at = deps.at ?? ''
  const unprocessable = (path: string, message: string) => new ApiError('unprocessable', message, [{ path: at + path, message }])
  const given = (['file', 'fileUrl', 'text'] as const).filter((k) => input[k] !== undefined)
  if (given.length !== 1) {
    const message = 'exactly one of file, fileUrl, text is required'
    throw new ApiError('invalid_request', message, [{ path: at, message }])
  }

  const ranges = input.pages === undefined ? undefined : parsePageRanges(input.pages, `${at}/pages`)

  if (input.text !== undefined) {
    if (input.text.trim() === '') throw unprocessable('/text', 'the document is empty')
    checkTextPages(input.text, deps.sandbox.budgets.maxPages, `${at}/text`)
    const doc: ResolvedDocument = { kind: 'text', mediaType: 'text/plain', text: input.text, pages: [input.text], hasTextLayer: true }
    return ranges ? selectText(doc, ranges, at, unprocessable) : doc
  }

  if (input.file) {
    const bytes = decodeBase64(input.file.data)
    if (!bytes) {
      const message = 'file.data is not valid base64'
      throw new ApiError('invalid_request', message, [{ path: `${at}/file/data`, message }])
    }
    if (bytes.length === 0) throw unprocessable('/file/data', 'the file is empty')
    return fromBytes(bytes, input.file.mimeType, 'file', at, deps, ranges)
  }

  const url = input.fileUrl!
  const badUrl = urlProblem(url, 'fileUrl')
  if (badUrl) throw new ApiError('invalid_request', badUrl, [{ path: `${at}/fileUrl`, message: badUrl }])
  let fetched: Awaited<ReturnType<DocumentFetcher>>
  try {
    fetched = await deps.fetch(url, deps.signal)
  } catch (err) {
    // Only our own wording: the fetcher's messages may name resolved hosts or redirect targets.
    if (err instanceof FetchError) throw unprocessable('/fileUrl', fetchFailureMessage('fileUrl', 'file', err))
    throw err // cancellation or a bug: not the caller's input
  }
  if (fetched.bytes.length === 0) throw unprocessable('/fileUrl', 'the file at fileUrl is empty')
  return fromBytes(fetched.bytes, fetched.contentType, 'fileUrl', at, deps, ranges)
}

/** A text of more pages than a PDF may have (DOCUMENT_MAX_PAGES) is refused like such a PDF, before anything splits it. */
function checkTextPages(text: string, maxPages: number, path: string): void {
  if (textPageCount(text, maxPages) <= maxPages) return
  const message = `the text has more than ${maxPages} pages (a form feed starts a page); the limit is ${maxPages}`
  throw new ApiError('document_too_complex', message, [{ path, message }])
}

/** A text document cut to the selected pages (form feeds separate pages). */
function selectText(
  doc: ResolvedDocument,
  ranges: PageRanges,
  at: string,
  unprocessable: (path: string, message: string) => ApiError,
): ResolvedDocument {
  const all = textPages(doc.text)
  const selected = selectPages(ranges, all.length, `${at}/pages`)
  const pages = new Array<string>(all.length).fill('')
  for (const n of selected) pages[n - 1] = all[n - 1]!
  const text = selected.map((n) => all[n - 1]!).join('\f')
  if (text.trim() === '') throw unprocessable('/pages', 'the selected pages are empty')
  return { ...doc, text, pages, selected }
}

async function fromBytes(
  bytes: Uint8Array,
  declared: string | null,
  source: 'file' | 'fileUrl',
  at: string,
  deps: ResolveDeps,
  ranges: PageRanges | undefined,
): Promise<ResolvedDocument> {
  const fail = (code: ErrorCode, message: string) => new ApiError(code, message, [{ path: `${at}/${source}`, message }])
  const sniffed = sniffMediaType(bytes)
  if (sniffed === 'application/pdf' || (sniffed && IMAGE_TYPES.has(sniffed))) {
    deps.signal?.throwIfAborted()
    const pages = await decodeOrRefuse(deps.sandbox, sniffed, bytes, `${at}/${source}`, {
      wait: deps.waitForDecoder ?? false,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.reader ? { reader: deps.reader } : {}),
      ...(ranges ? { only: ranges } : {}),
    })
    if (sniffed !== 'application/pdf') {
      if (ranges) selectPages(ranges, 1, `${at}/pages`) // an image is one page
      return { kind: 'image', mediaType: sniffed, text: '', pages: [], bytes, hasTextLayer: false }
    }
    if (ranges) {
      const selected = selectPages(ranges, pages.length, `${at}/pages`)
      const text = selected.map((n) => pages[n - 1]!).join(PAGE_SEPARATOR)
      // Only the selected pages may reach the model, so the file itself is never sent: they need their text.
      if (text.trim() === '') throw fail('unprocessable', 'the selected pages have no text layer; send them as a PDF of their own')
      return { kind: 'pdf', mediaType: sniffed, text, pages, bytes, hasTextLayer: true, selected }
    }
    const hasTextLayer = pages.some((p) => p.trim() !== '')
    return { kind: 'pdf', mediaType: sniffed, text: hasTextLayer ? pages.join(PAGE_SEPARATOR) : '', pages, bytes, hasTextLayer }
  }
  if (sniffed === null && TEXT_TYPES.has(baseType(declared))) {
    const text = decodeUtf8(bytes)
    if (text !== null) {
      if (text.trim() === '') throw fail('unprocessable', `the ${source === 'file' ? 'file' : 'file at fileUrl'} is empty`)
      checkTextPages(text, deps.sandbox.budgets.maxPages, `${at}/${source}`)
      const doc: ResolvedDocument = { kind: 'text', mediaType: baseType(declared), text, pages: [text], hasTextLayer: true }
      return ranges
        ? selectText(doc, ranges, at, (path, message) => new ApiError('unprocessable', message, [{ path: at + path, message }]))
        : doc
    }
  }
  throw fail(
    'unprocessable',
    `unsupported document type${sniffed ? ` ${sniffed}` : ''}: ${source} must be a PDF or an image (PNG, JPEG, GIF or WebP)`,
  )
}

/** The pages of a PDF ([] for an image) from the decoder pool; a refusal becomes its 422 at `path` (free). */
export async function decodeOrRefuse(
  sandbox: Pick<DocumentSandbox, 'decode'>,
  mediaType: string,
  bytes: Uint8Array,
  path: string,
  opts: TaskOptions & { only?: PageRanges },
): Promise<string[]> {
  try {
    return await sandbox.decode(mediaType, bytes, opts)
  } catch (err) {
    if (!(err instanceof DocumentRefusal)) throw err
    throw refusalAt(err, path)
  }
}

/** A decoder's refusal as the 422 of the request field at `path` (the call is free). */
export function refusalAt(err: DocumentRefusal, path: string): ApiError {
  const message = `${path.split('/').filter(Boolean).join('.') || 'the input'}: ${err.message}; nothing was charged`
  return new ApiError(err.code, message, [{ path, message }])
}

const baseType = (t: string | null) => (t ?? '').split(';')[0]!.trim().toLowerCase()

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    return text.includes('\0') ? null : text
  } catch {
    return null
  }
}

/**
 * `ai` SDK user-content parts for a resolved document. PDFs get their text with page markers (so models can
 * cite pages) and the file itself when the model accepts files or when there is no text to send.
 */
export function documentParts(doc: ResolvedDocument, acceptsFiles: boolean): Array<TextPart | FilePart | ImagePart> {
  if (doc.kind === 'text') return [{ type: 'text', text: doc.selected ? markPages(doc.pages, doc.selected) : doc.text }]
  if (doc.kind === 'image') return [{ type: 'image', image: doc.bytes!, mediaType: doc.mediaType }]
  const parts: Array<TextPart | FilePart> = []
  if (doc.hasTextLayer) parts.push({ type: 'text', text: markPages(doc.pages, doc.selected) })
  if (!doc.selected && (acceptsFiles || !doc.hasTextLayer)) parts.push({ type: 'file', data: doc.bytes!, mediaType: doc.mediaType })
  return parts
}
