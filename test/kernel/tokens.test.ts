import t from 'tap'
import { countTokens, encodingOf, tokenBound } from '../../core/models/tokens.ts'

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

t.test('the bound never under-counts and is exact once the text could pass the limit', async (t) => {
  const text = 'The party shall indemnify the other party against all claims. '.repeat(200)
  const exact = countTokens(text, 'gpt-4.1-mini')
  t.ok(exact < text.length / 3, 'English runs under one token per three characters')
  const far = tokenBound(text, 'gpt-4.1-mini', 1_000_000)
  t.ok(far >= exact && far <= 1_000_000, 'far below the limit: a cheap bound, still above the count')
  t.equal(tokenBound(text, 'gpt-4.1-mini', 100), exact, 'near the limit: the count itself')
  // Emoji take more tokens than characters; the bound holds because it counts bytes, not characters.
  const emoji = '🦄🐉🪐'.repeat(50)
  t.ok(tokenBound(emoji, 'gpt-4.1-mini', 10_000) >= countTokens(emoji, 'gpt-4.1-mini'))
})
