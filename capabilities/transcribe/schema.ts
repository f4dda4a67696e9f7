import { Type, type Static } from '@sinclair/typebox'
import { InlineFile } from '../../core/capability.ts'

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

export const Result = Type.Object(
  {
    text: Type.String({ minLength: 1 }),
    segments: Type.Array(Segment),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, description: 'ISO-639-1 as detected by the provider' })),
    durationSec: Type.Optional(Type.Number({ minimum: 0 })),
    diarized: Type.Optional(Type.Boolean({ description: 'present when diarize was asked: whether the segments carry speakers' })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
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
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
