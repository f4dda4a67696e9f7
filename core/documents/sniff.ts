// Media type from magic bytes. Declared types (file.mimeType, Content-Type) are only hints: the
// bytes decide what a document is.

type Sig = [type: string, offset: number, magic: string | number[], extra?: (b: Uint8Array) => boolean]

const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len))
const brand = (b: Uint8Array) => ascii(b, 8, 4)
const FTYP_HEIF = new Set(['heic', 'heix', 'hevc', 'heim', 'heis'])

// First match wins: specific entries (e.g. RIFF+WEBP) before generic ones.
const SIGNATURES: Sig[] = [
  ['image/png', 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', 0, [0xff, 0xd8, 0xff]],
  ['image/gif', 0, 'GIF87a'],
  ['image/gif', 0, 'GIF89a'],
  ['image/webp', 0, 'RIFF', (b) => ascii(b, 8, 4) === 'WEBP'],
  ['audio/wav', 0, 'RIFF', (b) => ascii(b, 8, 4) === 'WAVE'],
  ['audio/mpeg', 0, 'ID3'],
  ['audio/ogg', 0, 'OggS'],
  ['audio/flac', 0, 'fLaC'],
  ['audio/webm', 0, [0x1a, 0x45, 0xdf, 0xa3], (b) => ascii(b, 0, 64).includes('webm')],
  ['audio/x-matroska', 0, [0x1a, 0x45, 0xdf, 0xa3]],
  ['image/heic', 4, 'ftyp', (b) => FTYP_HEIF.has(brand(b))],
  ['image/avif', 4, 'ftyp', (b) => brand(b) === 'avif'],
  ['audio/mp4', 4, 'ftyp', (b) => brand(b).startsWith('M4')], // M4A, M4B, M4P
  ['video/quicktime', 4, 'ftyp', (b) => brand(b) === 'qt  '],
  ['video/mp4', 4, 'ftyp'],
]

// MPEG audio frame without an ID3 tag: 11 sync bits, version != reserved, layer != 0 (0 would be AAC ADTS).
const isMpegFrame = (b: Uint8Array) =>
  b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x18) !== 0x08 && (b[1]! & 0x06) !== 0

function matches(b: Uint8Array, [, offset, magic, extra]: Sig): boolean {
  const m = typeof magic === 'string' ? [...magic].map((c) => c.charCodeAt(0)) : magic
  if (b.length < offset + m.length) return false
  return m.every((v, i) => b[offset + i] === v) && (!extra || extra(b))
}

export function sniffMediaType(bytes: Uint8Array): string | null {
  const sig = SIGNATURES.find((s) => matches(bytes, s))
  if (sig) return sig[0]
  // PDF readers accept junk before the header, so look in the first KiB rather than at offset 0 only.
  if (Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes('%PDF-')) return 'application/pdf'
  return isMpegFrame(bytes) ? 'audio/mpeg' : null
}
