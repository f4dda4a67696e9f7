// A PDF's structure checked against the budgets before pdf.js sees it (runs inside a decoder process). pdf.js
// inflates a stream whole when it reads it, so a 2 MiB stream of flate-compressed spaces becomes 2 GiB before
// anything could stop it; here every compressed stream is inflated with zlib's streaming API, its output counted
// and dropped, and the scan stops at the first byte over the budget. Objects and nesting depth are counted the
// same way. Encrypted streams cannot be inflated without the key: the decoder's memory limit bounds those.
// The scan is linear in the file: a stream's filters may read on to the end of the file (see below), so what all
// of them read together is counted, and a file whose filters would read it over more than READ_FACTOR times is
// refused instead of being read once per stream.
import { constants, createInflate, inflateSync } from 'node:zlib'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'

const MiB = 1024 * 1024
/**
 * The bytes all streams' filters may read, as a multiple of the file's size (plus READ_SLACK): a well-formed
 * file's filters each stop at their own end and read it about once; one whose streams never end would be read
 * once per stream.
 */
const READ_FACTOR = 4
const READ_SLACK = 16 * MiB

/** Throws a DocumentRefusal when the PDF's streams, objects or nesting exceed the budgets. */
export async function scanPdf(bytes: Uint8Array, budgets: DocumentBudgets): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let inflated = 0
  let objects = 0
  let read = 0
  const readLimit = READ_FACTOR * buf.length + READ_SLACK
  const ends = { hex: nextAt(buf, '>'), a85: nextAt(buf, '~>') }
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
    // inside the data cannot hide bytes that pdf.js, reading /Length bytes, would inflate. At most what is left of
    // the read budget (and one byte more, to tell a stream that ends there from one that reads on).
    const input = buf.subarray(data, data + readLimit - read + 1)
    const expanded = await expandedSize(input, data, dict, budgets.maxDecompressedBytes - inflated, ends)
    inflated += expanded.size
    read += expanded.read
    if (inflated > budgets.maxDecompressedBytes) throw overBytes()
    if (read > readLimit) {
      throw new DocumentRefusal(
        'document_too_complex',
        `the document's streams do not end where they should: their filters would read more than ${READ_FACTOR} times its size`,
      )
    }
  }
  checkNesting(buf, from, buf.length, budgets.maxNesting)
  objects += countObjects(buf)
  if (objects > budgets.maxObjects) {
    throw new DocumentRefusal('document_too_complex', `the document has ${objects} objects; the limit is ${budgets.maxObjects}`)
  }
}

/**
 * The first `marker` at or after a position, for positions that only grow (the streams in file order): each
 * search starts where the last one found nothing or past its find, so all searches together read the file once.
 */
function nextAt(buf: Buffer, marker: string): (from: number) => number {
  let found = -1
  let none = false
  return (from) => {
    if (!none && found < from) {
      found = buf.indexOf(marker, from, 'latin1')
      none = found < 0
    }
    return none ? buf.length : found
  }
}

interface Expanded {
  /** bytes the stream decodes to, at most `cap` + 1 */
  size: number
  /** bytes of the file its filters read */
  read: number
}

/**
 * What this stream decodes to through the filters that expand (Flate, LZW, RunLength), behind an ASCII filter
 * when it has one. `input` starts at the stream's data (file offset `start`) and runs on to the end of the file.
 */
async function expandedSize(
  input: Buffer,
  start: number,
  dict: string,
  cap: number,
  ends: { hex: (from: number) => number; a85: (from: number) => number },
): Promise<Expanded> {
  let data = input
  let ascii = -1 // bytes the ASCII filter read, when there is one
  if (/\/(ASCIIHexDecode|AHx)\b/.test(dict)) {
    ascii = Math.min(input.length, ends.hex(start) - start)
    data = asciiHex(input.subarray(0, ascii))
  } else if (/\/(ASCII85Decode|A85)\b/.test(dict)) {
    ascii = Math.min(input.length, ends.a85(start) - start)
    data = ascii85(input.subarray(0, ascii))
  }
  const expanded = isZlib(data)
    ? await inflatedSize(data, cap)
    : /\/(LZWDecode|LZW)\b/.test(dict)
      ? lzwSize(data, cap)
      : /\/(RunLengthDecode|RL)\b/.test(dict)
        ? runLengthSize(data, cap)
        : { size: 0, read: 0 }
  return ascii < 0 ? expanded : { size: expanded.size, read: ascii }
}

// What pdf.js's FlateStream accepts: a zlib header (deflate, header checksum).
const isZlib = (b: Buffer) => b.length >= 2 && (b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0

/**
 * Most streams inflate to little: those in one synchronous call, on prefixes of the input that double until the
 * stream ends inside one (zlib reads no further than the stream's end, so a stream costs about twice its length);
 * a larger or damaged one through the streaming API.
 */
const SMALL = 1024 * 1024
const FIRST_PREFIX = 64 * 1024
async function inflatedSize(input: Buffer, cap: number): Promise<Expanded> {
  let read = 0
  for (let length = FIRST_PREFIX; ; length *= 2) {
    const prefix = input.subarray(0, length)
    try {
      const { buffer, engine } = inflateSync(prefix, {
        maxOutputLength: Math.min(SMALL, cap + 1),
        finishFlush: constants.Z_SYNC_FLUSH, // a prefix that stops inside the stream is not an error
        info: true,
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } }
      read += engine.bytesWritten
      // Ended inside the prefix (or at the end of the file): what it read is all it reads.
      if (engine.bytesWritten < prefix.length || prefix.length === input.length) return { size: buffer.length, read }
    } catch {
      // Over SMALL (ERR_BUFFER_TOO_LARGE), or damaged: count what inflates, reading at most as far as this prefix.
      return { size: await inflatedSizeStreaming(prefix, cap), read: read + prefix.length }
    }
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
function lzwSize(input: Buffer, cap: number): Expanded {
  const lengths = new Uint32Array(4096).fill(1, 0, 256)
  let next = 258
  let width = 9
  let prev = -1
  let size = 0
  let bits = 0
  let acc = 0
  for (let at = 0; at < input.length; at++) {
    acc = ((acc << 8) | input[at]!) >>> 0
    bits += 8
    while (bits >= width) {
      bits -= width
      const code = (acc >>> bits) & ((1 << width) - 1)
      if (code === 256) {
        ;[next, width, prev] = [258, 9, -1]
        continue
      }
      if (code === 257 || (code >= next && prev < 0)) return { size, read: at + 1 }
      size += code < next ? lengths[code]! : lengths[prev]! + 1
      if (size > cap) return { size, read: at + 1 }
      if (prev >= 0 && next < 4096) lengths[next++] = lengths[prev]! + 1
      prev = code
      if (next + 1 >= 1 << width && width < 12) width++
    }
  }
  return { size, read: input.length }
}

function runLengthSize(input: Buffer, cap: number): Expanded {
  let size = 0
  let i = 0
  while (i < input.length && size <= cap) {
    const n = input[i]!
    if (n === 128) return { size, read: i + 1 }
    if (n < 128) {
      size += n + 1
      i += n + 2
    } else {
      size += 257 - n
      i += 2
    }
  }
  return { size, read: Math.min(i, input.length) }
}

/** ASCIIHex data (cut before its `>`) as bytes. */
function asciiHex(input: Buffer): Buffer {
  return Buffer.from(input.toString('latin1').replace(/[^0-9a-fA-F]/g, ''), 'hex')
}

/** ASCII85 data (cut before its `~>`) as bytes. */
function ascii85(input: Buffer): Buffer {
  let out = Buffer.alloc(Math.min(4 * input.length, MiB)) // grows: a `z` is 4 bytes from 1
  let length = 0
  const put = (word: number, bytes: number) => {
    if (length + 4 > out.length) out = Buffer.concat([out.subarray(0, length), Buffer.alloc(out.length + 4)])
    out.writeUInt32BE(word >>> 0, length)
    length += bytes
  }
  let value = 0
  let digits = 0
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    if (c === 0x7a && digits === 0) put(0, 4)
    else if (c >= 0x21 && c <= 0x75) {
      value = value * 85 + (c - 33)
      if (++digits === 5) {
        put(value, 4)
        value = digits = 0
      }
    }
  }
  if (digits > 1) {
    for (let i = digits; i < 5; i++) value = value * 85 + 84
    put(value, digits - 1)
  }
  return out.subarray(0, length)
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
