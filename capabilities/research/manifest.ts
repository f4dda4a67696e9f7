import { Type, type Static } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { DEPTHS, handler, MAX_SOURCES } from './handler.ts'

export const ResearchRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    focus: Type.Optional(Type.String({ maxLength: 2000 })),
    depth: Type.Optional(Type.Unsafe<(typeof DEPTHS)[number]>({ type: 'string', enum: [...DEPTHS], default: 'standard' })),
  },
  { additionalProperties: false },
)

export const ResearchResult = Type.Object(
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
              'Indexes into `sources`, mapped by code from the URLs the model cited; a finding with no cited search result is left out.',
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
          "Only URLs the provider's web search returned, in its order, one per URL (fragment, utm_* and www. ignored), at most 50 (cited ones kept first). A search with no sources is 502 inference_failed, free.",
      },
    ),
  },
  { additionalProperties: false },
)
export type ResearchResult = Static<typeof ResearchResult>

export default defineCapability({
  name: 'research',
  summary: 'Multi-source, citation-backed web research brief',
  price: 50,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  webSearch: true,
  request: ResearchRequest,
  response: ResearchResult,
  example: {
    request: { query: 'State of heat-pump adoption in European homes', focus: 'policy drivers since 2022', depth: 'standard' },
    response: {
      brief: 'Heat-pump sales in Europe rose sharply in 2022, then fell in 2023 and 2024 as subsidies changed and gas prices eased.',
      findings: [
        { finding: 'Sales grew by about 40% in 2022 across the markets tracked by the industry association.', sourceIndexes: [0] },
        { finding: 'Several countries cut or redesigned subsidies in 2023, and sales fell.', sourceIndexes: [0, 1] },
      ],
      sources: [
        { url: 'https://www.ehpa.org/market-data/', title: 'Market data | European Heat Pump Association' },
        { url: 'https://www.iea.org/reports/the-future-of-heat-pumps', title: 'The Future of Heat Pumps | IEA' },
      ],
    },
  },
  handler,
})
