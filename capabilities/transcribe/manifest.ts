import { Type } from '@sinclair/typebox'
import { InlineFile, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const Clock = Type.String({ pattern: '^[0-9]{2,}:[0-5][0-9]$', description: 'MM:SS; minutes go past 59 (75:03)' })

export const Segment = Type.Object(
  {
    speaker: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "the provider's speaker label, when diarize is set and the provider gives one",
      }),
    ),
    start: Clock,
    end: Type.Optional(Clock),
    startSec: Type.Number({ minimum: 0 }),
    endSec: Type.Optional(Type.Number({ minimum: 0 })),
    text: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
)

export const TranscribeResult = Type.Object(
  {
    text: Type.String({ minLength: 1 }),
    segments: Type.Array(Segment),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, description: 'ISO-639-1 as detected by the provider' })),
    durationSec: Type.Optional(Type.Number({ minimum: 0 })),
    diarized: Type.Optional(Type.Boolean({ description: 'present when diarize was asked: whether the segments carry speakers' })),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'transcribe',
  summary: 'Audio to text with speakers and paragraph timestamps',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'transcription',
  // Shipped paused (spec 3.2, C10); config has the last word: `paused: { transcribe: false }` resumes it.
  paused: true,
  request: Type.Object(
    {
      audioUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
      audio: Type.Optional(InlineFile),
      diarize: Type.Optional(Type.Boolean({ default: false })),
      language: Type.Optional(
        Type.String({ minLength: 2, maxLength: 3, pattern: '^[A-Za-z]{2,3}$', description: 'ISO-639-1 hint, e.g. "en"' }),
      ),
      prompt: Type.Optional(
        Type.String({ minLength: 1, maxLength: 1000, description: 'names and terms to spell right, or the text before this audio' }),
      ),
    },
    { additionalProperties: false, oneOf: [{ required: ['audioUrl'] }, { required: ['audio'] }] },
  ),
  response: TranscribeResult,
  example: {
    request: { audioUrl: 'https://example.com/standup.mp3', diarize: true, language: 'en' },
    response: {
      text: 'Morning everyone. The release is on track.',
      segments: [
        { speaker: 'A', start: '00:00', end: '00:02', startSec: 0, endSec: 2.1, text: 'Morning everyone.' },
        { speaker: 'B', start: '00:02', end: '00:05', startSec: 2.1, endSec: 5.4, text: 'The release is on track.' },
      ],
      language: 'en',
      durationSec: 5.4,
      diarized: true,
    },
  },
  handler,
})
