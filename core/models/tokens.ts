// Token counts for the context budget and for prices by size: the model's own tokenizer where it is known
// (OpenAI's o200k and cl100k encodings), else a conservative characters / 3, rounded up.
// A tokenizer's tables take about 73 MiB (o200k), so they load on the first text that could exceed the limit
// asked about: a token is at least one UTF-8 byte, so a text of at most `limit` bytes needs no counting.
// gpt-tokenizer's merges take time that grows with the square of a run without whitespace ("b" × 150,000: 17 s),
// so a text is counted in pieces of at most PIECE characters, cut between words: the sum is the tokenizer's count
// of the whole (a word never spans a cut), and a run without any space is cut every PIECE characters, which keeps
// every piece's time bounded and the whole linear. Even so, a long text can take seconds (about 15 µs a character
// for text the tokenizer has not seen, such as random CJK): the API counts long texts in the decoder pool
// (DocumentSandbox.countTokens), never on its event loop.
import { createRequire } from 'node:module'

type Encoding = 'o200k_base' | 'cl100k_base'
const load = createRequire(import.meta.url)
const counters = new Map<Encoding, (text: string) => number>()
/** The longest piece counted at once. */
export const PIECE = 1000

/** The encoding a model id uses, or null when the service knows no tokenizer for it. */
export function encodingOf(modelId: string): Encoding | null {
  const id = modelId.toLowerCase().replace(/^openai\//, '')
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d|chatgpt-|codex-)/.test(id)) return 'o200k_base'
  if (/^(gpt-4|gpt-3\.5|text-embedding-)/.test(id)) return 'cl100k_base'
  return null
}

/** Tokens of `text` as `modelId` counts them (characters / 3, rounded up, for a model without a known tokenizer). */
export function countTokens(text: string, modelId: string): number {
  const encoding = encodingOf(modelId)
  if (!encoding) return Math.ceil(text.length / 3)
  let count = counters.get(encoding)
  if (!count) {
    type Tokenizer = { countTokens: (t: string, options: { disallowedSpecial: Set<string> }) => number }
    const tokenizer = load(`gpt-tokenizer/encoding/${encoding}`) as Tokenizer
    // "<|endoftext|>" in a caller's text is text, not a reason to throw.
    const options = { disallowedSpecial: new Set<string>() }
    count = (t) => tokenizer.countTokens(t, options)
    counters.set(encoding, count)
  }
  let tokens = 0
  for (let at = 0; at < text.length;) {
    const end = pieceEnd(text, at)
    tokens += count(text.slice(at, end))
    at = end
  }
  return tokens
}

const WORD = /[\p{L}\p{N}]/u
const LETTER = /\p{L}/u

/**
 * Where the piece starting at `from` ends: before the last space in reach that separates two words (the
 * tokenizer starts a word's token with the space before it, and ends the word before it), else before the last
 * whitespace after a non-space, else PIECE characters on (never inside a surrogate pair).
 */
function pieceEnd(text: string, from: number): number {
  const limit = from + PIECE
  if (limit >= text.length) return text.length
  let loose = -1
  for (let i = limit; i > from; i--) {
    const c = text[i]!
    if (c === ' ' && WORD.test(text[i - 1]!) && LETTER.test(text[i + 1] ?? '')) return i
    if (loose < 0 && /\s/.test(c) && !/\s/.test(text[i - 1]!)) loose = i
  }
  if (loose > 0) return loose
  const code = text.charCodeAt(limit - 1)
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit
}

/**
 * An upper bound of the tokens of `text` that needs no tokenizer: UTF-8 bytes for a model with a known tokenizer
 * (a token is at least one byte), characters / 3 (rounded up) else, which is then the count itself.
 */
export function tokenBound(text: string, modelId: string): number {
  return encodingOf(modelId) ? Buffer.byteLength(text) : Math.ceil(text.length / 3)
}
