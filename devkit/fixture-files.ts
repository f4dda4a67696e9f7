// Files the tests and evals send, built in one place: the generated PDFs of devkit/fixtures/pdf/ as inline `file`
// inputs, PNGs of one colour, and the PNG chunk the other image fixtures are built from.
import { readFileSync } from 'node:fs'
import { crc32, deflateSync } from 'node:zlib'

/** devkit/fixtures/pdf/<name>.pdf as an inline `file` input. */
export function pdfFile(name: string): { data: string; mimeType: string } {
  return { data: readFileSync(new URL(`./fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' }
}

/** A PNG of one solid colour (for the image capabilities: "a red square" is a fact code can score). */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): string {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())])
  const raw = Buffer.concat(Array.from({ length: height }, () => row))
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]).toString('base64')
}

/** One PNG chunk: length, type, data and the CRC-32 of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}
