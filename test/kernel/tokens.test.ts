import t from 'tap'
import { createRequire } from 'node:module'
import { countTokens, encodingOf, PIECE, tokenBound } from '../../core/models/tokens.ts'

t.test('OpenAI models are counted with their own encoding, others with characters / 3', async (t) => {
  t.equal(encodingOf('gpt-4.1-mini'), 'o200k_base')
  t.equal(encodingOf('openai/gpt-5'), 'o200k_base')
  t.equal(encodingOf('gpt-4-turbo'), 'cl100k_base')
  t.equal(encodingOf('llama-3.1-70b'), null)
  // "hello world" is two tokens in both encodings.
  t.equal(countTokens('hello world', 'gpt-4.1-mini'), 2)
  t.equal(countTokens('hello world', 'gpt-4'), 2)
  t.equal(countTokens('hello world', 'llama-3.1-70b'), 4)
})

t.test('the bound never under-counts', async (t) => {
  const text = 'The party shall indemnify the other party against all claims. '.repeat(200)
  const exact = countTokens(text, 'gpt-4.1-mini')
  t.ok(exact < text.length / 3, 'English runs under one token per three characters')
  t.ok(tokenBound(text, 'gpt-4.1-mini') >= exact, 'UTF-8 bytes: above the count')
  // Emoji take more tokens than characters; the bound holds because it counts bytes, not characters.
  const emoji = '🦄🐉🪐'.repeat(50)
  t.ok(tokenBound(emoji, 'gpt-4.1-mini') >= countTokens(emoji, 'gpt-4.1-mini'))
  t.equal(tokenBound('hello world', 'llama-3.1-70b'), 4, 'without a tokenizer the bound is the count')
})

t.test('a text is counted in pieces cut between words: the whole count, linear in the text', async (t) => {
  const tokenizer = createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: (t: string) => number }
  const whole = (text: string) => tokenizer.countTokens(text)
  // Prose of many pieces (words, numbers, punctuation, line breaks, other scripts): cut only between two words,
  // where the tokenizer's own split starts a token, so the sum is the tokenizer's count of the whole.
  const words = ['Invoice', 'INV-2041', 'from', 'Acme', 'GmbH.', 'Total:', '1,250.00', 'EUR', 'über', 'straße', 'é', '請求書', 'naïve']
  const prose = Array.from(
    { length: 20_000 },
    (_, i) => words[(i * 7) % words.length]! + (i % 17 === 0 ? '\n\n' : i % 5 === 0 ? ', ' : ' '),
  ).join('')
  t.ok(prose.length > 50 * PIECE)
  t.equal(countTokens(prose, 'gpt-4.1-mini'), whole(prose), 'prose: exactly the tokenizer count')
  // A run without whitespace is cut every PIECE characters (never inside a surrogate pair): each piece's merges
  // take bounded time, where one run of 150,000 took gpt-tokenizer 17 s. Its count stays that of the run.
  const run = 'b'.repeat(150_000)
  t.equal(countTokens(run, 'gpt-4.1-mini'), (150_000 / PIECE) * whole('b'.repeat(PIECE)))
  const astral = '𝒜'.repeat(PIECE) // two UTF-16 units each
  t.equal(countTokens(astral, 'gpt-4.1-mini'), whole(astral.slice(0, PIECE)) + whole(astral.slice(PIECE)), 'no pair is split')
  // A caller's text may contain a special token's spelling: it is text, counted, never a thrown error.
  t.ok(countTokens('a <|endoftext|> b', 'gpt-4.1-mini') > 4, 'the spelling counts as the text it is')
})
