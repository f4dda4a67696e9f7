// Pixel size from an image header: PNG (IHDR), JPEG (first SOFn), GIF (logical screen), WebP (VP8/VP8L/VP8X).
// null when the header is not one of these or is truncated: the caller then omits width and height.

export function imageDimensions(b: Buffer, mediaType: string): { width: number; height: number } | null {
  try {
    switch (mediaType) {
      case 'image/png':
        return b.length >= 24 && b.toString('ascii', 12, 16) === 'IHDR' ? ok(b.readUInt32BE(16), b.readUInt32BE(20)) : null
      case 'image/gif':
        return b.length >= 10 ? ok(b.readUInt16LE(6), b.readUInt16LE(8)) : null
      case 'image/jpeg':
        return jpeg(b)
      case 'image/webp':
        return webp(b)
      default:
        return null
    }
  } catch {
    return null // RangeError from a truncated header
  }
}

const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null)

function jpeg(b: Buffer) {
  let off = 2
  while (off + 4 <= b.length) {
    if (b[off] !== 0xff) return null
    const marker = b[off + 1]!
    if (marker === 0xff) {
      off++ // fill byte
      continue
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      off += 2 // markers without a length
      continue
    }
    const len = b.readUInt16BE(off + 2)
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return ok(b.readUInt16BE(off + 7), b.readUInt16BE(off + 5))
    }
    off += 2 + len
  }
  return null
}

function webp(b: Buffer) {
  const chunk = b.toString('ascii', 12, 16)
  if (chunk === 'VP8X') return ok(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3))
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21)
    return ok(1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff))
  }
  if (chunk === 'VP8 ') return ok(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff)
  return null
}
