import { Type, type Static } from '@sinclair/typebox'

/** OpenAI's built-in voices. tts-1 and tts-1-hd know the first nine; ballad, verse, marin and cedar need gpt-4o-mini-tts. */
const VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'ballad', 'verse', 'marin', 'cedar'] as const
export const PACES = ['slow', 'normal', 'fast'] as const
const FORMATS = ['mp3', 'wav'] as const

export const Result = Type.Object(
  {
    audio: Type.String({ minLength: 1, description: 'base64-encoded audio bytes' }),
    mimeType: Type.String({ minLength: 1, maxLength: 64, description: 'taken from the bytes, not from the provider' }),
    durationSec: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'measured from the audio (WAV header, MP3 frames)' })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
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
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
