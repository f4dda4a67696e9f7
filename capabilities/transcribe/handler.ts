import type { Static } from '@sinclair/typebox'
import { NoTranscriptGeneratedError, transcribe } from 'ai'
import { AUDIO_TYPES, ApiError, loadMedia, type CapabilityContext } from '../../core/capability.ts'
import { type Segment, type Input, type Output } from './schema.ts'

type OutSegment = Static<typeof Segment>

/** Seconds → MM:SS, whole seconds rounded down; minutes are not wrapped into hours (4503 s → "75:03"). */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0))
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const audio = await loadMedia(
    { inline: input.audio, url: input.audioUrl },
    {
      inlinePath: '/audio',
      urlPath: '/audioUrl',
      accept: AUDIO_TYPES,
      what: 'audio',
      expected: 'send WAV, MP3, M4A, OGG, FLAC or WebM audio',
    },
    ctx,
  )
  const model = ctx.ai.provider.transcription()
  const result = await ctx.ai.run('transcription', (abortSignal) =>
    transcribe({
      model,
      audio: audio.bytes,
      providerOptions: {
        openai: {
          // @ai-sdk/openai 4 picks the response format of OpenAI's own gpt-* models itself (json or diarized_json);
          // any other model (whisper-1, whisper servers behind OPENAI_BASE_URL) is asked for verbose_json: segments.
          ...((typeof model === 'string' ? model : model.modelId).startsWith('gpt-') ? {} : { responseFormat: 'verbose_json' as const }),
          timestampGranularities: ['segment'],
          ...(input.language ? { language: input.language.toLowerCase() } : {}),
          ...(input.prompt ? { prompt: input.prompt } : {}),
        },
      },
      abortSignal,
      maxRetries: 0,
    }).catch((e: unknown) => {
      // An answer without speech is the caller's audio, not a provider failure (ApiErrors pass through run).
      if (!NoTranscriptGeneratedError.isInstance(e)) throw e
      throw new ApiError('unprocessable', 'No speech was recognised in the audio.', [
        { path: input.audio ? '/audio' : '/audioUrl', message: 'no speech recognised' },
      ])
    }),
  )
  const text = result.text.trim()
  if (!text) throw new ApiError('unprocessable', 'No speech was recognised in the audio.')
  const speakers = input.diarize ? speakersOf(result.responses, result.segments.length) : null
  const segments = toSegments(result.segments, speakers, text, result.durationInSeconds)
  const out: Output = { text, segments }
  const language = result.language ?? rawLanguage(result.responses)
  if (language) out.language = language
  if (result.durationInSeconds !== undefined && Number.isFinite(result.durationInSeconds) && result.durationInSeconds >= 0) {
    out.durationSec = round(result.durationInSeconds)
  }
  if (input.diarize) out.diarized = segments.some((s) => s.speaker !== undefined)
  return out
}

const round = (n: number) => Math.round(n * 1000) / 1000

/**
 * Code guarantees: segments in time order, start ≤ end, no empty text, MM:SS computed from seconds. A provider
 * that gives no segments (json-only models) yields one segment with the whole text from 00:00.
 */
export function toSegments(
  raw: ReadonlyArray<{ text: string; startSecond: number; endSecond: number }>,
  speakers: Array<string | undefined> | null,
  text: string,
  duration: number | undefined,
): OutSegment[] {
  const out: OutSegment[] = []
  raw.forEach((s, i) => {
    const t = s.text.trim()
    if (!t) return
    const start = Math.max(0, Number.isFinite(s.startSecond) ? s.startSecond : 0)
    const end = Number.isFinite(s.endSecond) ? Math.max(start, s.endSecond) : undefined
    const seg: OutSegment = { start: clock(start), startSec: round(start), text: t }
    if (end !== undefined) Object.assign(seg, { end: clock(end), endSec: round(end) })
    const speaker = speakers?.[i]
    if (speaker) seg.speaker = speaker
    out.push(seg)
  })
  if (out.length === 0) {
    const seg: OutSegment = { start: clock(0), startSec: 0, text }
    if (duration !== undefined && Number.isFinite(duration) && duration > 0)
      Object.assign(seg, { end: clock(duration), endSec: round(duration) })
    out.push(seg)
  }
  // Stable: equal starts keep the provider's order.
  return out
    .map((s, i) => [s, i] as const)
    .sort((a, b) => a[0].startSec - b[0].startSec || a[1] - b[1])
    .map(([s]) => s)
}

/**
 * Speaker labels from the provider's raw answer: `segments[i].speaker`, one per segment the SDK returned, as
 * diarizing OpenAI-compatible servers send them. The ai SDK does not surface them, so they are read from the
 * raw body; when the counts differ the labels cannot be matched and none are given.
 */
export function speakersOf(responses: ReadonlyArray<unknown>, count: number): Array<string | undefined> | null {
  const body = (responses[0] as { body?: unknown } | undefined)?.body
  const rawSegments = (body as { segments?: unknown } | undefined)?.segments
  if (!Array.isArray(rawSegments) || rawSegments.length !== count) return null
  const labels = rawSegments.map((s) => {
    const v = (s as { speaker?: unknown } | null)?.speaker
    if (typeof v === 'number' && Number.isFinite(v)) return String(v)
    return typeof v === 'string' && v.trim() ? v.trim().slice(0, 64) : undefined
  })
  return labels.some((l) => l !== undefined) ? labels : null
}

/** The SDK maps only full language names ("english"); servers that answer with a code ("en") keep it. */
function rawLanguage(responses: ReadonlyArray<unknown>): string | undefined {
  const v = (responses[0] as { body?: { language?: unknown } } | undefined)?.body?.language
  return typeof v === 'string' && /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(v) ? v : undefined
}
