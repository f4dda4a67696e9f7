// Audio length measured from the bytes, never from the provider: WAV from its header (data size / byte rate),
// MP3 by walking its frames (samples per frame / sample rate, so VBR is exact). null when it cannot be measured.

export function audioDuration(bytes: Uint8Array, mediaType: string): number | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const seconds = mediaType === 'audio/wav' ? wavDuration(b) : mediaType === 'audio/mpeg' ? mp3Duration(b) : null
  return seconds !== null && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) / 1000 : null
}

export function wavDuration(b: Buffer): number | null {
  if (b.length < 12 || b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') return null
  let byteRate = 0
  for (let off = 12; off + 8 <= b.length;) {
    const tag = b.toString('ascii', off, off + 4)
    const size = b.readUInt32LE(off + 4)
    if (tag === 'fmt ' && off + 20 <= b.length) byteRate = b.readUInt32LE(off + 16)
    // Streamed WAV writes 0xFFFFFFFF (or 0) as the data size: what follows the header is the data.
    if (tag === 'data')
      return byteRate ? (size === 0 || size === 0xffffffff ? b.length - off - 8 : Math.min(size, b.length - off - 8)) / byteRate : null
    off += 8 + size + (size & 1)
  }
  return null
}

// kbps by [MPEG-1 ? 0 : 1][layer 1..3 → 0..2][index]
const BITRATES = [
  [
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  [
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
]
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] }

interface Frame {
  length: number
  samples: number
  rate: number
}

function frameAt(b: Buffer, off: number): Frame | null {
  if (off + 4 > b.length || b[off] !== 0xff || (b[off + 1]! & 0xe0) !== 0xe0) return null
  const version = (b[off + 1]! >> 3) & 3 // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5, 1 reserved
  const layerBits = (b[off + 1]! >> 1) & 3 // 3 layer I, 2 layer II, 1 layer III, 0 reserved
  const bitrateIndex = b[off + 2]! >> 4
  const rateIndex = (b[off + 2]! >> 2) & 3
  const padding = (b[off + 2]! >> 1) & 1
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null
  const layer = 4 - layerBits // 1, 2, 3
  const kbps = BITRATES[version === 3 ? 0 : 1]![layer - 1]![bitrateIndex]!
  const rate = SAMPLE_RATES[version]![rateIndex]!
  const samples = layer === 1 ? 384 : layer === 2 || version === 3 ? 1152 : 576
  const length =
    layer === 1 ? (Math.floor((12 * kbps * 1000) / rate) + padding) * 4 : Math.floor(((samples / 8) * kbps * 1000) / rate) + padding
  return length > 4 ? { length, samples, rate } : null
}

export function mp3Duration(b: Buffer): number | null {
  let off = 0
  // ID3v2 tag: 10-byte header, sync-safe size, optional 10-byte footer.
  if (b.length >= 10 && b.toString('ascii', 0, 3) === 'ID3') {
    off = 10 + ((b[6]! & 0x7f) << 21) + ((b[7]! & 0x7f) << 14) + ((b[8]! & 0x7f) << 7) + (b[9]! & 0x7f) + (b[5]! & 0x10 ? 10 : 0)
  }
  let seconds = 0
  let frames = 0
  let resync = 0
  while (off + 4 <= b.length) {
    const frame = frameAt(b, off)
    if (!frame) {
      if (b.toString('ascii', off, off + 3) === 'TAG') break // ID3v1 trailer
      // Junk between frames: look for the next sync word, but only so far.
      if (++resync > 64 * 1024) break
      off++
      continue
    }
    // A Xing/Info/VBRI header frame carries no audio.
    const head = b.toString('latin1', off + 4, Math.min(off + 40, b.length))
    if (!(frames === 0 && /Xing|Info|VBRI/.test(head))) seconds += frame.samples / frame.rate
    frames++
    off += frame.length
  }
  return frames > 0 ? seconds : null
}
