import type { Static } from '@sinclair/typebox'
import { generateImage } from 'ai'
import type { CapabilityContext } from '../../core/capability.ts'
import { sniffMediaType } from '../../core/documents/sniff.ts'
import { ApiError } from '../../core/errors.ts'
import { ClientGone } from '../../core/models/generate.ts'
import { imageDimensions } from './dimensions.ts'
import type { ASPECT_RATIOS, ImageResult } from './manifest.ts'

interface Input {
  prompt: string
  style?: string
  aspectRatio?: (typeof ASPECT_RATIOS)[number]
}

/**
 * OpenAI image models accept three sizes only: square, 3:2 landscape and 2:3 portrait. Each ratio maps to the
 * closest of them (README); the response reports the size asked for.
 */
export const SIZES: Record<(typeof ASPECT_RATIOS)[number], `${number}x${number}`> = {
  '1:1': '1024x1024',
  '16:9': '1536x1024',
  '4:3': '1536x1024',
  '9:16': '1024x1536',
  '3:4': '1024x1536',
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif'])
// The kernel's sync model timeout (config.syncModelTimeoutMs default); the context does not expose it.
const TIMEOUT_MS = 60_000

export async function handler(input: Input, ctx: CapabilityContext): Promise<Static<typeof ImageResult>> {
  const size = SIZES[input.aspectRatio ?? '1:1']
  const prompt = input.style ? `${input.prompt.trim()}\n\nStyle: ${input.style.trim()}` : input.prompt.trim()
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)])
  let result: Awaited<ReturnType<typeof generateImage>>
  try {
    result = await generateImage({ model: ctx.ai.provider.image(), prompt, size, n: 1, abortSignal: signal, maxRetries: 0 })
  } catch (e) {
    if (ctx.signal.aborted) throw new ClientGone('client disconnected')
    if (signal.aborted) throw new ApiError('inference_failed', 'The image provider timed out.')
    ctx.log(`image model failed: ${(e as Error).message}`)
    throw new ApiError('inference_failed', 'The image provider failed.')
  }
  const image = result.images[0]
  if (!image || image.uint8Array.length === 0) throw new ApiError('inference_failed', 'The image provider returned no image.')
  const bytes = Buffer.from(image.uint8Array)
  // The media type is the bytes' own: a provider's label is not trusted.
  const mimeType = sniffMediaType(bytes)
  if (!mimeType || !IMAGE_TYPES.has(mimeType)) throw new ApiError('inference_failed', 'The image provider returned data that is not an image.')
  const out: Static<typeof ImageResult> = { image: bytes.toString('base64'), mimeType, size }
  const revised = revisedPrompt(result.providerMetadata)
  if (revised) out.revisedPrompt = revised
  const dims = imageDimensions(bytes, mimeType)
  if (dims) Object.assign(out, dims)
  return out
}

function revisedPrompt(metadata: unknown): string | undefined {
  // providerMetadata: { openai: { images: [{ revisedPrompt }] } }, or the same under another provider's name.
  for (const entry of Object.values((metadata ?? {}) as Record<string, { images?: Array<{ revisedPrompt?: unknown }> }>)) {
    const value = entry?.images?.[0]?.revisedPrompt
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return undefined
}
