// /v1/research: the request (a question, a focus, a depth) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const DEPTHS = ['standard', 'deep'] as const
export const MAX_SOURCES = 50

export const Request = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    focus: Type.Optional(Type.String({ maxLength: 2000 })),
    depth: Type.Optional(StringEnum(DEPTHS, { default: 'standard' })),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    brief: Type.String({ minLength: 1, description: 'A short answer based only on what the web search found.' }),
    findings: Type.Array(
      Type.Object(
        {
          finding: Type.String({ minLength: 1 }),
          sourceIndexes: Type.Array(Type.Integer({ minimum: 0, maximum: MAX_SOURCES - 1 }), {
            minItems: 1,
            maxItems: MAX_SOURCES,
            uniqueItems: true,
            description:
              'Indexes into `sources`: the sources the model cited by number (at least one; its answer schema bounds the numbers by the sources found).',
          }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        maxItems: 12,
        description: 'Standard depth asks for 3 to 6 findings, deep for 6 to 12 (guidance to the model, not a guarantee).',
      },
    ),
    sources: Type.Array(
      Type.Object({ url: Type.String({ format: 'uri' }), title: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      {
        minItems: 1,
        maxItems: MAX_SOURCES,
        description:
          "Only URLs the provider's web search returned, in its order, one per URL (fragment, utm_* and www. ignored), the first 50. A search with no sources is 502 inference_failed, free.",
      },
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
