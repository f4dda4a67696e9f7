// /favicon.ico: a 16 × 16 icon drawn here (a ring in the dashboard's accent colour), so browsers asking for it on
// every page get an icon instead of a 404 in the log. ICO with one 32-bit BMP image: header, directory entry,
// BITMAPINFOHEADER, pixels bottom-up (BGRA), then the AND mask (all zero: the alpha channel decides).
const SIZE = 16

function pixel(x: number, y: number): [number, number, number, number] {
  const d = Math.hypot(x + 0.5 - SIZE / 2, y + 0.5 - SIZE / 2)
  if (d > 7.5) return [0, 0, 0, 0]
  return d > 5 || d < 2.5 ? [0xe5, 0x46, 0x4f, 0xff] : [0xff, 0xff, 0xff, 0xff] // BGRA of #4f46e5, white
}

export const FAVICON: Buffer = (() => {
  const pixels = Buffer.alloc(SIZE * SIZE * 4)
  for (let row = 0; row < SIZE; row++) for (let x = 0; x < SIZE; x++) pixels.set(pixel(x, SIZE - 1 - row), (row * SIZE + x) * 4) // rows bottom-up
  const mask = Buffer.alloc(SIZE * 4) // 1 bit a pixel, rows padded to 4 bytes
  const info = Buffer.alloc(40)
  info.writeUInt32LE(40, 0)
  info.writeInt32LE(SIZE, 4)
  info.writeInt32LE(SIZE * 2, 8) // the height of the colour and mask images together
  info.writeUInt16LE(1, 12)
  info.writeUInt16LE(32, 14)
  const image = Buffer.concat([info, pixels, mask])
  const header = Buffer.alloc(6 + 16)
  header.writeUInt16LE(1, 2) // type: icon
  header.writeUInt16LE(1, 4) // one image
  header.writeUInt8(SIZE, 6)
  header.writeUInt8(SIZE, 7)
  header.writeUInt16LE(1, 10) // planes
  header.writeUInt16LE(32, 12) // bits per pixel
  header.writeUInt32LE(image.length, 14)
  header.writeUInt32LE(header.length, 18)
  return Buffer.concat([header, image])
})()
