// Token counts for the context budget and for prices by size (issue 27): the model's own tokenizer where it is
// known (OpenAI's o200k and cl100k encodings), else a conservative characters / 3, rounded up.
// A tokenizer's tables take about 73 MiB (o200k), so they load on the first text that could exceed the limit
// asked about: a token is at least one UTF-8 byte, so a text of at most `limit` bytes needs no counting.
import { createRequire } from 'node:module'

type Encoding = 'o200k_base' | 'cl100k_base'
const load = createRequire(import.meta.url)
const counters = new Map<Encoding, (text: string) => number>()

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
    const tokenizer = load(`gpt-tokenizer/encoding/${encoding}`) as { countTokens: (t: string) => number }
    count = tokenizer.countTokens
    counters.set(encoding, count)
  }
  return count(text)
}

/**
 * An upper bound of the tokens of `text`, exact (the tokenizer's count) whenever the text could exceed `limit`:
 * below that, UTF-8 bytes for a model with a known tokenizer (a token is at least one byte), characters / 3 else.
 * Callers compare it with `limit`; a text far below it never loads a tokenizer.
 */
export function tokenBound(text: string, modelId: string, limit: number): number {
  if (!encodingOf(modelId)) return Math.ceil(text.length / 3)
  const bytes = Buffer.byteLength(text)
  return bytes <= limit ? bytes : countTokens(text, modelId)
}
