// Text as the evidence check compares it: Unicode-folded (NFKC), lower case, typographic quotes and dashes
// straightened, invisible characters and ALL whitespace dropped (PDF text layers split and join words at random),
// with a map back to the original offsets so the quote published is the document's own text.

const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032]/g
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/g
const DASHES = /[\u2010-\u2015\u2212]/g

export interface Folded {
  /** the text the offsets refer to (NFC of the original) */
  source: string
  /** the folded text */
  text: string
  /** offsets[i]: where folded character i starts in the original */
  offsets: number[]
}

/** One code point as compared. */
function foldChar(ch: string): string {
  const code = ch.charCodeAt(0)
  if (code < 0x80) return code <= 0x20 || code === 0x7f ? '' : code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch // ASCII: most text
  if (/\s/.test(ch) || INVISIBLE.test(ch)) return ''
  return ch.normalize('NFKC').toLowerCase().replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(DASHES, '-').replace(/\s+/g, '')
}

/** `text` folded, with the original offset of every folded character. */
export function fold(text: string): Folded {
  const source = text.normalize('NFC')
  let out = ''
  const offsets: number[] = []
  let i = 0
  for (const ch of source) {
    const f = foldChar(ch)
    for (let k = 0; k < f.length; k++) offsets.push(i)
    out += f
    i += ch.length
  }
  return { source, text: out, offsets }
}

/** The folded form only. */
export const folded = (text: string): string => fold(text).text

/** Letters and digits only, folded: "Supply, LLC" and "Supply LLC" compare equal. */
export const lettersAndDigits = (text: string): string => folded(text).replace(/[^\p{L}\p{N}]+/gu, '')
