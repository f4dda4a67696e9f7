import { generateImage } from 'ai'
import { ApiError, IMAGE_TYPES, sniffMediaType, type CapabilityContext } from '../../core/capability.ts'
import { imageDimensions } from './dimensions.ts'
import type { ASPECT_RATIOS, Input, Output } from './schema.ts'

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

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const size = SIZES[input.aspectRatio ?? '1:1']
  const prompt = input.style ? `${input.prompt.trim()}\n\nStyle: ${input.style.trim()}` : input.prompt.trim()
  const result = await ctx.ai.run('image', (abortSignal) =>
    generateImage({ model: ctx.ai.provider.image(), prompt, size, n: 1, abortSignal, maxRetries: 0 }),
  )
  const image = result.images[0]
  if (!image || image.uint8Array.length === 0) throw new ApiError('inference_failed', 'The image provider returned no image.')
  const bytes = Buffer.from(image.uint8Array)
  // The media type is the bytes' own: a provider's label is not trusted.
  const mimeType = sniffMediaType(bytes)
  if (!mimeType || !IMAGE_TYPES.has(mimeType))
    throw new ApiError('inference_failed', 'The image provider returned data that is not an image.')
  const dims = imageDimensions(bytes, mimeType)
  const [w, h] = dims ? [dims.width, dims.height] : size.split('x').map(Number)
  const out: Output = { image: bytes.toString('base64'), mimeType, size, aspectRatio: ratio(w!, h!) }
  const revised = revisedPrompt(result.providerMetadata)
  if (revised) out.revisedPrompt = revised
  if (dims) Object.assign(out, dims)
  return out
}

/** "1536x1024" → "3:2": the ratio of what was produced, which for 16:9 or 4:3 is not what was asked for. */
export function ratio(width: number, height: number): string {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const d = gcd(width, height)
  return `${width / d}:${height / d}`
}

function revisedPrompt(metadata: unknown): string | undefined {
  // providerMetadata: { openai: { images: [{ revisedPrompt }] } }, or the same under another provider's name.
  for (const entry of Object.values((metadata ?? {}) as Record<string, { images?: Array<{ revisedPrompt?: unknown }> }>)) {
    const value = entry?.images?.[0]?.revisedPrompt
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return undefined
}
