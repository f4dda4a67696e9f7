import { Type, type Static } from '@sinclair/typebox'

export const ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4'] as const

export const Result = Type.Object(
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

export const Request = Type.Object(
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
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
