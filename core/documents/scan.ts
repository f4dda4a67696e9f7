// A PDF's structure checked against the budgets before pdf.js sees it (runs inside a decoder process). pdf.js
// inflates a stream whole when it reads it, so a 2 MiB stream of flate-compressed spaces becomes 2 GiB before
// anything could stop it; here every compressed stream is inflated with zlib's streaming API, its output counted
// and dropped, and the scan stops at the first byte over the budget. Objects and nesting depth are counted the
// same way. Encrypted streams cannot be inflated without the key: the decoder's memory limit bounds those.
import { createInflate, inflateSync } from 'node:zlib'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'

const MiB = 1024 * 1024

/** Throws a DocumentRefusal when the PDF's streams, objects or nesting exceed the budgets. */
export async function scanPdf(bytes: Uint8Array, budgets: DocumentBudgets): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let inflated = 0
  let objects = 0
  let from = 0 // start of the bytes outside streams not yet checked for nesting
  const overBytes = () =>
    new DocumentRefusal(
      'document_too_complex',
      `the document's compressed streams expand to more than ${format(budgets.maxDecompressedBytes)} (the limit)`,
    )
  for (let at = buf.indexOf('stream', 0, 'latin1'); at >= 0; at = buf.indexOf('stream', at + 6, 'latin1')) {
    if (at >= 3 && buf.toString('latin1', at - 3, at) === 'end') continue
    const dictEnd = lastNonSpace(buf, at)
    if (dictEnd < 1 || buf[dictEnd] !== 0x3e || buf[dictEnd - 1] !== 0x3e) continue // not `>> stream`
    let data = at + 6
    if (buf[data] === 0x0d) data++
    if (buf[data] === 0x0a) data++
    const dict = buf.toString('latin1', Math.max(from, dictEnd - 4096), dictEnd + 1)
    checkNesting(buf, from, at, budgets.maxNesting)
    from = data
    if (/\/Type\s*\/ObjStm/.test(dict)) objects += Number(/\/N\s+(\d+)/.exec(dict)?.[1] ?? 0)
    // The data up to the end of the file: each decoder stops at its own end marker, so a forged `endstream`
    // inside the data cannot hide bytes that pdf.js, reading /Length bytes, would inflate.
    const expanded = await expandedSize(buf.subarray(data), dict, budgets.maxDecompressedBytes - inflated)
    inflated += expanded
    if (inflated > budgets.maxDecompressedBytes) throw overBytes()
  }
  checkNesting(buf, from, buf.length, budgets.maxNesting)
  objects += countObjects(buf)
  if (objects > budgets.maxObjects) {
    throw new DocumentRefusal('document_too_complex', `the document has ${objects} objects; the limit is ${budgets.maxObjects}`)
  }
}

/** Bytes this stream decodes to through the filters that expand (Flate, LZW, RunLength), at most `cap` + 1. */
async function expandedSize(data: Buffer, dict: string, cap: number): Promise<number> {
  let input = data
  if (/\/(ASCIIHexDecode|AHx)\b/.test(dict)) input = asciiHex(input)
  else if (/\/(ASCII85Decode|A85)\b/.test(dict)) input = ascii85(input)
  if (isZlib(input)) return inflatedSize(input, cap)
  if (/\/(LZWDecode|LZW)\b/.test(dict)) return lzwSize(input, cap)
  if (/\/(RunLengthDecode|RL)\b/.test(dict)) return runLengthSize(input, cap)
  return 0
}

// What pdf.js's FlateStream accepts: a zlib header (deflate, header checksum).
const isZlib = (b: Buffer) => b.length >= 2 && (b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0

/** Most streams inflate to little: those in one synchronous call; a larger or damaged one through the stream. */
const SMALL = 1024 * 1024
async function inflatedSize(input: Buffer, cap: number): Promise<number> {
  try {
    return inflateSync(input, { maxOutputLength: Math.min(SMALL, cap + 1) }).length
  } catch {
    return inflatedSizeStreaming(input, cap) // over SMALL (ERR_BUFFER_TOO_LARGE), or damaged: count what inflates
  }
}

function inflatedSizeStreaming(input: Buffer, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 256 * 1024 })
    let size = 0
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > cap) {
        inflate.destroy()
        resolve(size)
      }
    })
    inflate.on('end', () => resolve(size))
    inflate.on('error', () => resolve(size)) // corrupt data: pdf.js keeps what inflated before the damage too
    inflate.end(input)
  })
}

/** LZW output length (PDF LZWDecode, EarlyChange 1) without building the output: each code's length is known. */
function lzwSize(input: Buffer, cap: number): number {
  const lengths = new Uint32Array(4096).fill(1, 0, 256)
  let next = 258
  let width = 9
  let prev = -1
  let size = 0
  let bits = 0
  let acc = 0
  for (const byte of input) {
    acc = ((acc << 8) | byte) >>> 0
    bits += 8
    while (bits >= width) {
      bits -= width
      const code = (acc >>> bits) & ((1 << width) - 1)
      if (code === 256) {
        ;[next, width, prev] = [258, 9, -1]
        continue
      }
      if (code === 257 || (code >= next && prev < 0)) return size
      size += code < next ? lengths[code]! : lengths[prev]! + 1
      if (size > cap) return size
      if (prev >= 0 && next < 4096) lengths[next++] = lengths[prev]! + 1
      prev = code
      if (next + 1 >= 1 << width && width < 12) width++
    }
  }
  return size
}

function runLengthSize(input: Buffer, cap: number): number {
  let size = 0
  for (let i = 0; i < input.length && size <= cap;) {
    const n = input[i]!
    if (n === 128) break
    if (n < 128) {
      size += n + 1
      i += n + 2
    } else {
      size += 257 - n
      i += 2
    }
  }
  return size
}

function asciiHex(input: Buffer): Buffer {
  const end = input.indexOf(0x3e)
  return Buffer.from(input.toString('latin1', 0, end < 0 ? input.length : end).replace(/[^0-9a-fA-F]/g, ''), 'hex')
}

function ascii85(input: Buffer): Buffer {
  const end = input.indexOf('~>', 0, 'latin1')
  const text = input.toString('latin1', 0, end < 0 ? input.length : end).replace(/\s+/g, '')
  const out: number[] = []
  let group: number[] = []
  const flush = (count: number) => {
    let v = 0
    for (let i = 0; i < 5; i++) v = v * 85 + (group[i] ?? 84)
    for (let i = 0; i < count - 1; i++) out.push((v >>> (24 - 8 * i)) & 0xff)
    group = []
  }
  for (const c of text) {
    if (c === 'z' && group.length === 0) out.push(0, 0, 0, 0)
    else if (c >= '!' && c <= 'u') {
      group.push(c.charCodeAt(0) - 33)
      if (group.length === 5) flush(5)
    }
  }
  if (group.length > 1) flush(group.length)
  return Buffer.from(out)
}

/** `N G obj` headers: the indirect objects outside object streams. */
function countObjects(buf: Buffer): number {
  let n = 0
  for (let at = buf.indexOf('obj', 0, 'latin1'); at >= 0; at = buf.indexOf('obj', at + 3, 'latin1')) {
    const before = buf[at - 1]
    if (before === 0x20 || before === 0x0a || before === 0x0d) {
      const b = buf[lastNonSpace(buf, at)]
      if (b !== undefined && b >= 0x30 && b <= 0x39) n++
    }
  }
  return n
}

function lastNonSpace(buf: Buffer, before: number): number {
  let i = before - 1
  while (i >= 0 && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09 || buf[i] === 0x0c || buf[i] === 0)) i--
  return i
}

/** Arrays and dictionaries opened inside one another between `from` and `to` (strings and comments skipped). */
function checkNesting(buf: Buffer, from: number, to: number, max: number): void {
  let depth = 0
  for (let i = from; i < to; i++) {
    const c = buf[i]
    if (c === 0x25) {
      // % comment to the end of the line
      while (i < to && buf[i] !== 0x0a && buf[i] !== 0x0d) i++
    } else if (c === 0x28) {
      // (string) with nested parentheses and escapes
      let open = 1
      for (i++; i < to && open > 0; i++) {
        if (buf[i] === 0x5c) i++
        else if (buf[i] === 0x28) open++
        else if (buf[i] === 0x29) open--
      }
      i--
    } else if (c === 0x5b || (c === 0x3c && buf[i + 1] === 0x3c)) {
      if (c === 0x3c) i++
      if (++depth > max) {
        throw new DocumentRefusal('document_too_complex', `the document nests objects more than ${max} levels deep (the limit)`)
      }
    } else if (c === 0x3c) {
      while (i < to && buf[i] !== 0x3e) i++ // <hex string>
    } else if (c === 0x5d || (c === 0x3e && buf[i + 1] === 0x3e)) {
      if (c === 0x3e) i++
      depth = Math.max(0, depth - 1)
    }
  }
}

export function format(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`
}
