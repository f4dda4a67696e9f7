import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

/** OpenAI's built-in voices. tts-1 and tts-1-hd know the first nine; ballad, verse, marin and cedar need gpt-4o-mini-tts. */
export const VOICES = [
  'alloy',
  'ash',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'ballad',
  'verse',
  'marin',
  'cedar',
] as const
export const PACES = ['slow', 'normal', 'fast'] as const
export const FORMATS = ['mp3', 'wav'] as const

export const SpeakResult = Type.Object(
  {
    audio: Type.String({ minLength: 1, description: 'base64-encoded audio bytes' }),
    mimeType: Type.String({ minLength: 1, maxLength: 64, description: 'taken from the bytes, not from the provider' }),
    durationSec: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'measured from the audio (WAV header, MP3 frames)' })),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'speak',
  summary: 'Text to speech audio',
  price: 5,
  async: false,
  ratePerMinute: 60,
  model: 'speech',
  request: Type.Object(
    {
      // The provider's own input limit (OpenAI: 4,096 characters).
      text: Type.String({ minLength: 1, maxLength: 4096, pattern: '\\S' }),
      voice: Type.Optional(
        Type.Union(
          VOICES.map((v) => Type.Literal(v)),
          { default: 'alloy' },
        ),
      ),
      pace: Type.Optional(
        Type.Union(
          PACES.map((p) => Type.Literal(p)),
          { default: 'normal' },
        ),
      ),
      format: Type.Optional(
        Type.Union(
          FORMATS.map((f) => Type.Literal(f)),
          { default: 'mp3' },
        ),
      ),
      instructions: Type.Optional(
        Type.String({ minLength: 1, maxLength: 1000, description: 'tone and delivery, e.g. "warm and calm"; gpt-4o-mini-tts only' }),
      ),
    },
    { additionalProperties: false },
  ),
  response: SpeakResult,
  example: {
    request: { text: 'Your order has shipped and will arrive on Thursday.', voice: 'nova', pace: 'normal' },
    response: { audio: '//uQZAAAAAAAAAAAAAAAAAAAAAAAAAAA', mimeType: 'audio/mpeg', durationSec: 2.612 },
  },
  handler,
})
