// The image a caller sends: inline base64 or a public URL. The bytes decide what it is (sniffMediaType);
// the declared mimeType and the server's Content-Type are only hints and never trusted.
import type { CapabilityContext } from '../../core/capability.ts'
import { sniffMediaType } from '../../core/documents/sniff.ts'
import { ApiError } from '../../core/errors.ts'
import { FetchError } from '../../core/net/safe-fetch.ts'

export const MAX_IMAGE_BYTES = 20 * 1024 * 1024
/** What the vision model accepts. HEIC and AVIF are sniffed but refused: the models do not read them. */
export const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

const unprocessable = (path: string, message: string) => new ApiError('unprocessable', message, [{ path, message }])

// Buffer.from(s, 'base64') skips invalid characters silently, so check the alphabet first. Accepts a data: URL
// prefix, line breaks and the URL-safe alphabet, as clients commonly send them.
export function decodeBase64(data: string): Buffer | null {
  const b64 = data.replace(/^data:[^,]{0,200};base64,/i, '').replace(/[\r\n\t ]+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64) || b64.length % 4 === 1) return null
  if (b64.includes('=') && b64.length % 4 !== 0) return null
  return Buffer.from(b64, 'base64')
}

function fetchFailure(err: FetchError): string {
  switch (err.kind) {
    case 'refused':
      return 'imageUrl points to a non-public address (or its host cannot be resolved)'
    case 'too_large':
      return 'the image at imageUrl is larger than 20 MiB'
    case 'timeout':
      return 'fetching imageUrl timed out (limit 20 s)'
    case 'http_status':
      return `fetching imageUrl failed: the server answered HTTP ${err.status ?? 'with an error'}`
    case 'too_many_redirects':
      return 'imageUrl redirected too many times (at most 3 redirects are followed)'
    case 'network':
      return 'imageUrl could not be fetched (network error)'
  }
}

export async function loadImage(
  input: { imageUrl?: string; image?: { data: string; mimeType: string } },
  ctx: CapabilityContext,
): Promise<{ bytes: Buffer; mediaType: string }> {
  let bytes: Buffer
  let path: string
  if (input.image) {
    path = '/image'
    const decoded = decodeBase64(input.image.data)
    if (!decoded) throw new ApiError('invalid_request', 'image.data is not valid base64', [{ path: '/image/data', message: 'is not valid base64' }])
    bytes = decoded
  } else {
    path = '/imageUrl'
    try {
      bytes = (await ctx.fetchPublic(input.imageUrl!, { maxBytes: MAX_IMAGE_BYTES })).bytes
    } catch (err) {
      // Our own wording only: the fetcher's messages may name resolved hosts or redirect targets.
      if (err instanceof FetchError) throw unprocessable(path, fetchFailure(err))
      throw err // cancellation or a bug: not the caller's input
    }
  }
  if (bytes.length === 0) throw unprocessable(path, 'the image is empty')
  if (bytes.length > MAX_IMAGE_BYTES) throw unprocessable(path, 'the image is larger than 20 MiB')
  const sniffed = sniffMediaType(bytes)
  if (!sniffed || !IMAGE_TYPES.has(sniffed)) {
    throw unprocessable(path, `unsupported image type${sniffed ? ` ${sniffed}` : ''}: send a PNG, JPEG, GIF or WebP image`)
  }
  return { bytes, mediaType: sniffed }
}
