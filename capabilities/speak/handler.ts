import { generateSpeech } from 'ai'
import { ApiError, sniffMediaType, type CapabilityContext } from '../../core/capability.ts'
import { audioDuration } from './duration.ts'
import type { PACES, Input, Output } from './schema.ts'

/** pace → the provider's speed multiplier (OpenAI accepts 0.25–4). */
const SPEEDS: Record<(typeof PACES)[number], number> = { slow: 0.85, normal: 1, fast: 1.2 }

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const pace = input.pace ?? 'normal'
  const { audio: generated } = await ctx.ai.run('speech', (abortSignal) =>
    generateSpeech({
      model: ctx.ai.provider.speech(),
      text: input.text,
      voice: input.voice ?? 'alloy',
      outputFormat: input.format ?? 'mp3',
      ...(pace !== 'normal' ? { speed: SPEEDS[pace] } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      abortSignal,
      maxRetries: 0,
    }),
  )
  const audio = generated.uint8Array
  if (audio.length === 0) throw new ApiError('inference_failed', 'The speech provider returned no audio.')
  // The media type is the bytes' own; audio without a recognisable container (e.g. raw PCM) is refused.
  const mimeType = sniffMediaType(audio)
  if (!mimeType?.startsWith('audio/')) throw new ApiError('inference_failed', 'The speech provider returned data that is not audio.')
  const out: Output = { audio: Buffer.from(audio).toString('base64'), mimeType }
  const seconds = audioDuration(audio, mimeType)
  if (seconds !== null) out.durationSec = seconds
  return out
}
