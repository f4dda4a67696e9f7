// An image's declared size, read from its header inside a decoder process: a PNG may declare 100,000 × 100,000
// pixels in 60 bytes, and whatever decodes it next (we, or the vision model's front end) would allocate that.
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'

/** Width and height as the header declares them, or null when the header cannot be read. */
export function imageSize(b: Buffer, mediaType: string): { width: number; height: number } | null {
  switch (mediaType) {
    case 'image/png':
      return b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR' ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : null
    case 'image/gif':
      return b.length >= 10 ? { width: b.readUInt16LE(6), height: b.readUInt16LE(8) } : null
    case 'image/webp':
      return webpSize(b)
    case 'image/jpeg':
      return jpegSize(b)
  }
  return null
}

function webpSize(b: Buffer): { width: number; height: number } | null {
  if (b.length < 30) return null
  const chunk = b.toString('latin1', 12, 16)
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) }
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21)
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) }
  }
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
  return null
}

/** The first start-of-frame segment's size; segments are walked by their lengths, so this is linear in the header. */
function jpegSize(b: Buffer): { width: number; height: number } | null {
  let i = 2
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null
    const marker = b[i + 1]!
    if (marker === 0xff) {
      i++ // fill byte
      continue
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2
      continue
    }
    i += 2 + b.readUInt16BE(i + 2)
  }
  return null
}

/** Refuses an image whose header cannot be read or that declares more pixels than the budget. */
export function checkImage(bytes: Uint8Array, mediaType: string, budgets: DocumentBudgets): void {
  const size = imageSize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), mediaType)
  if (!size || size.width === 0 || size.height === 0) {
    throw new DocumentRefusal('document_unreadable', `the image could not be read (no valid ${mediaType} header)`)
  }
  if (size.width * size.height > budgets.maxImagePixels) {
    throw new DocumentRefusal(
      'document_too_complex',
      `the image declares ${size.width} × ${size.height} pixels; the limit is ${budgets.maxImagePixels} pixels`,
    )
  }
}
