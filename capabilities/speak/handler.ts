import type { Static } from '@sinclair/typebox'
import { experimental_generateSpeech as generateSpeech } from 'ai'
import type { CapabilityContext } from '../../core/capability.ts'
import { sniffMediaType } from '../../core/documents/sniff.ts'
import { ApiError } from '../../core/errors.ts'
import { ClientGone } from '../../core/models/generate.ts'
import { audioDuration } from './duration.ts'
import type { FORMATS, PACES, SpeakResult, VOICES } from './manifest.ts'

interface Input {
  text: string
  voice?: (typeof VOICES)[number]
  pace?: (typeof PACES)[number]
  format?: (typeof FORMATS)[number]
  instructions?: string
}

/** pace → the provider's speed multiplier (OpenAI accepts 0.25–4). */
export const SPEEDS: Record<(typeof PACES)[number], number> = { slow: 0.85, normal: 1, fast: 1.2 }
// The kernel's sync model timeout (config.syncModelTimeoutMs default); the context does not expose it.
const TIMEOUT_MS = 60_000

export async function handler(input: Input, ctx: CapabilityContext): Promise<Static<typeof SpeakResult>> {
  const pace = input.pace ?? 'normal'
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)])
  let audio: Uint8Array
  try {
    const result = await generateSpeech({
      model: ctx.ai.provider.speech(),
      text: input.text,
      voice: input.voice ?? 'alloy',
      outputFormat: input.format ?? 'mp3',
      ...(pace !== 'normal' ? { speed: SPEEDS[pace] } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      abortSignal: signal,
      maxRetries: 0,
    })
    audio = result.audio.uint8Array
  } catch (e) {
    if (ctx.signal.aborted) throw new ClientGone('client disconnected')
    if (signal.aborted) throw new ApiError('inference_failed', 'The speech provider timed out.')
    ctx.log(`speech model failed: ${(e as Error).message}`)
    throw new ApiError('inference_failed', 'The speech provider failed.')
  }
  if (audio.length === 0) throw new ApiError('inference_failed', 'The speech provider returned no audio.')
  // The media type is the bytes' own; audio without a recognisable container (e.g. raw PCM) is refused.
  const mimeType = sniffMediaType(audio)
  if (!mimeType?.startsWith('audio/')) throw new ApiError('inference_failed', 'The speech provider returned data that is not audio.')
  const out: Static<typeof SpeakResult> = { audio: Buffer.from(audio).toString('base64'), mimeType }
  const seconds = audioDuration(audio, mimeType)
  if (seconds !== null) out.durationSec = seconds
  return out
}
