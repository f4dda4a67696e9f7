// Media a caller sends (an image, a recording): inline base64 or a public URL. The bytes decide what it is
// (sniffMediaType); the declared mimeType and the server's Content-Type are only hints and never trusted.
// Refusals follow contract C2: malformed input is 400 invalid_request, valid input we cannot use is 422. An
// image's header is read in the decoder pool (too many pixels: document_too_complex).
import { ApiError } from '../errors.ts'
import { FetchError } from '../net/safe-fetch.ts'
import { sniffMediaType } from './sniff.ts'

const MiB = 1024 * 1024
/** C12: a file from a caller is at most 20 MiB. */
export const MAX_MEDIA_BYTES = 20 * MiB

/** The image types vision models read. HEIC and AVIF are sniffed but refused: the models do not read them. */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
/** Containers the transcription API reads (OpenAI: flac, mp3, mp4/m4a, ogg, wav, webm). Matroska and video are refused. */
export const AUDIO_TYPES: ReadonlySet<string> = new Set(['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/flac', 'audio/webm', 'audio/mp4'])

// Buffer.from(s, 'base64') silently skips invalid characters, so validate first. Accepts line breaks,
// a data: URL prefix and the URL-safe alphabet, which clients commonly send.
export function decodeBase64(data: string): Buffer | null {
  const b64 = data.replace(/^data:[^,]{0,200};base64,/i, '').replace(/[\r\n\t ]+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64) || b64.length % 4 === 1) return null
  if (b64.includes('=') && b64.length % 4 !== 0) return null
  return Buffer.from(b64, 'base64')
}

/** The problem with a caller's URL field, or null: only http(s), never with credentials. */
export function urlProblem(url: string, field: string): string | null {
  const parsed = URL.canParse(url) ? new URL(url) : null
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password) {
    return `${field} must be an http or https URL without credentials`
  }
  return null
}

/**
 * Our own wording for a failed fetch of the URL in `field` (e.g. 'fileUrl', 'a file'): the fetcher's messages
 * may name resolved hosts or redirect targets, so they never reach the caller.
 */
export function fetchFailureMessage(field: string, what: string, err: FetchError, maxBytes = MAX_MEDIA_BYTES): string {
  switch (err.kind) {
    case 'refused':
      return `${field} points to a non-public address (or its host cannot be resolved)`
    case 'too_large':
      return `the ${what} at ${field} is larger than ${maxBytes / MiB} MiB`
    case 'timeout':
      return `fetching ${field} timed out (limit 20 s)`
    case 'http_status':
      return `fetching ${field} failed: the server answered HTTP ${err.status ?? 'with an error'}`
    case 'too_many_redirects':
      return `${field} redirected too many times (at most 3 redirects are followed)`
    case 'network':
      return `${field} could not be fetched (network error)`
  }
}

export interface MediaSource {
  inline?: { data: string; mimeType: string } | undefined
  url?: string | undefined
}

export interface MediaOptions {
  /** JSON pointers of the two request fields, e.g. '/image' and '/imageUrl'. */
  inlinePath: string
  urlPath: string
  /** The media types accepted, by the bytes' own signature. */
  accept: ReadonlySet<string>
  /** The noun in messages: 'the image is empty', 'unsupported audio type …'. */
  what: string
  /** What to send instead of an unsupported type, e.g. 'send a PNG, JPEG, GIF or WebP image'. */
  expected: string
  /** Default (and at most, C12) 20 MiB. */
  maxBytes?: number
}

/**
 * The bytes of an inline file (`source.inline`) or of a public URL (`source.url`, fetched under the C12 guard),
 * and their media type sniffed from the bytes. Bad base64 is 400; a failed fetch, empty or oversized bytes and a
 * type outside `accept` are 422, each with the path of the field that carried the media.
 */
export async function loadMedia(
  source: MediaSource,
  opts: MediaOptions,
  ctx: {
    fetchPublic(url: string, opts: { maxBytes: number }): Promise<{ bytes: Buffer }>
    documents: { inspectImage(bytes: Uint8Array, mediaType: string, path: string): Promise<void> }
  },
): Promise<{ bytes: Buffer; mediaType: string }> {
  const maxBytes = opts.maxBytes ?? MAX_MEDIA_BYTES
  const unprocessable = (path: string, message: string) => new ApiError('unprocessable', message, [{ path, message }])
  const name = (path: string) => path.split('/').filter(Boolean).join('.')
  let bytes: Buffer
  let path: string
  if (source.inline) {
    path = opts.inlinePath
    const decoded = decodeBase64(source.inline.data)
    if (!decoded) {
      throw new ApiError('invalid_request', `${name(path)}.data is not valid base64`, [
        { path: `${path}/data`, message: 'is not valid base64' },
      ])
    }
    bytes = decoded
  } else {
    path = opts.urlPath
    try {
      bytes = (await ctx.fetchPublic(source.url!, { maxBytes })).bytes
    } catch (err) {
      if (err instanceof FetchError) throw unprocessable(path, fetchFailureMessage(name(path), opts.what, err, maxBytes))
      throw err // cancellation or a bug: not the caller's input
    }
  }
  if (bytes.length === 0) throw unprocessable(path, `the ${opts.what} is empty`)
  if (bytes.length > maxBytes) throw unprocessable(path, `the ${opts.what} is larger than ${maxBytes / MiB} MiB`)
  const sniffed = sniffMediaType(bytes)
  if (!sniffed || !opts.accept.has(sniffed)) {
    throw unprocessable(path, `unsupported ${opts.what} type${sniffed ? ` ${sniffed}` : ''}: ${opts.expected}`)
  }
  if (IMAGE_TYPES.has(sniffed)) await ctx.documents.inspectImage(bytes, sniffed, path)
  return { bytes, mediaType: sniffed }
}
