import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

export const ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4'] as const

export const ImageResult = Type.Object(
  {
    image: Type.String({ minLength: 1, description: 'base64-encoded image bytes' }),
    mimeType: Type.String({ minLength: 1, maxLength: 64, description: 'taken from the bytes, not from the provider' }),
    revisedPrompt: Type.Optional(Type.String({ minLength: 1 })),
    size: Type.String({ pattern: '^[0-9]+x[0-9]+$', description: 'the size requested from the provider' }),
    aspectRatio: Type.String({
      pattern: '^[0-9]+:[0-9]+$',
      maxLength: 20,
      description: 'the aspect ratio produced (of width:height measured, else of size), reduced: "3:2" when 16:9 or 4:3 was asked for',
    }),
    width: Type.Optional(Type.Integer({ minimum: 1, description: 'measured from the image header' })),
    height: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'image',
  summary: 'Image from a prompt',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'image',
  request: Type.Object(
    {
      prompt: Type.String({ minLength: 1, maxLength: 4000, pattern: '\\S' }),
      style: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'e.g. "watercolor", "flat vector illustration"' })),
      aspectRatio: Type.Optional(
        Type.Union(
          ASPECT_RATIOS.map((r) => Type.Literal(r)),
          { default: '1:1' },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  response: ImageResult,
  example: {
    request: { prompt: 'A lighthouse at dawn', style: 'watercolor', aspectRatio: '16:9' },
    response: {
      image: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgaPj/HwAFBQJ/zl4q1QAAAABJRU5ErkJggg==',
      mimeType: 'image/png',
      revisedPrompt: 'A lighthouse at dawn, watercolor',
      size: '1536x1024',
      aspectRatio: '3:2',
      width: 1536,
      height: 1024,
    },
  },
  handler,
})
