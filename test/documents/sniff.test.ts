import t from 'tap'
import { sniffMediaType } from '../../core/documents/sniff.ts'

const b = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))))
const pad = (n: number) => new Array<number>(n).fill(0)

const cases: Array<[string, Uint8Array, string | null]> = [
  ['pdf', b('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'), 'application/pdf'],
  ['pdf after junk (readers allow it)', b(pad(100), '%PDF-1.4\n'), 'application/pdf'],
  ['png', b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], pad(8)), 'image/png'],
  ['jpeg', b([0xff, 0xd8, 0xff, 0xe0], pad(8)), 'image/jpeg'],
  ['gif87a', b('GIF87a', pad(6)), 'image/gif'],
  ['gif89a', b('GIF89a', pad(6)), 'image/gif'],
  ['webp', b('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
  ['wav', b('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'audio/wav'],
  ['mp3 with ID3', b('ID3', [4, 0, 0], pad(8)), 'audio/mpeg'],
  ['mp3 frame sync (MPEG-1 layer III)', b([0xff, 0xfb, 0x90, 0x64], pad(8)), 'audio/mpeg'],
  ['ogg', b('OggS', pad(8)), 'audio/ogg'],
  ['flac', b('fLaC', pad(8)), 'audio/flac'],
  ['webm', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm'), 'audio/webm'],
  ['matroska', b([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88], 'matroska'), 'audio/x-matroska'],
  ['m4a', b([0, 0, 0, 0x20], 'ftypM4A ', pad(4)), 'audio/mp4'],
  ['mp4', b([0, 0, 0, 0x20], 'ftypisom', pad(4)), 'video/mp4'],
  ['heic is an image, not a video', b([0, 0, 0, 0x18], 'ftypheic', pad(4)), 'image/heic'],
  ['zip', b('PK', [3, 4], pad(26)), null],
  ['exe', b('MZ', [0x90, 0], pad(60)), null],
  ['AAC ADTS is not mp3', b([0xff, 0xf1, 0x50, 0x80], pad(8)), null],
  ['plain text', b('hello, world'), null],
  ['empty', new Uint8Array(0), null],
  ['too short for its signature', b([0x89, 0x50]), null],
]

for (const [name, bytes, want] of cases) t.equal(sniffMediaType(bytes), want, name)

t.test('works on a subarray view (offsets respected)', async (t) => {
  const whole = b('xxxx', '%PDF-1.7')
  t.equal(sniffMediaType(whole.subarray(4)), 'application/pdf')
  t.equal(sniffMediaType(new Uint8Array([0, 0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).subarray(2)), 'image/png')
})
