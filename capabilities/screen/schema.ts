// /v1/screen: the request (a lead, ICP criteria, a depth) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { Profile, StringEnum } from '../../core/capability.ts'

export const VERDICTS = ['qualified', 'maybe', 'disqualified'] as const
export const DEPTHS = ['standard', 'deep'] as const
export const EMPLOYEE_RANGES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'] as const
export const MAX_SOURCES = 30
export const MAX_EVIDENCE = 10

export const Request = Type.Object(
  {
    lead: Profile,
    // The ideal-customer-profile criteria: one text, or a list (then evidence names the criterion it bears on).
    criteria: Type.Union([
      Type.String({ minLength: 1, maxLength: 10_000 }),
      Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 30 }),
    ]),
    // Optional addition (README.md): how hard to search.
    depth: Type.Optional(StringEnum(DEPTHS, { default: 'standard' })),
  },
  { additionalProperties: false },
)

const Evidence = Type.Object(
  {
    evidence: Type.String({ minLength: 1 }),
    criterion: Type.Optional(Type.String({ minLength: 1 })),
    sourceIndexes: Type.Array(Type.Integer({ minimum: 0, maximum: MAX_SOURCES - 1 }), {
      minItems: 1,
      maxItems: MAX_SOURCES,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    verdict: StringEnum(VERDICTS),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    evidenceFor: Type.Array(Evidence, { maxItems: MAX_EVIDENCE }),
    evidenceAgainst: Type.Array(Evidence, { maxItems: MAX_EVIDENCE }),
    // Optional addition (README.md): criteria the search could neither confirm nor refute.
    unverified: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 30 })),
    profile: Type.Object(
      {
        name: Type.Optional(Type.String({ minLength: 1 })),
        website: Type.Optional(Type.String({ format: 'uri' })),
        industry: Type.Optional(Type.String({ minLength: 1 })),
        headquarters: Type.Optional(Type.String({ minLength: 1 })),
        employeeRange: Type.Optional(StringEnum(EMPLOYEE_RANGES)),
        description: Type.Optional(Type.String({ minLength: 1 })),
      },
      { additionalProperties: false },
    ),
    // The web search results the evidence cites (capabilities.md: every sourceIndexes entry points in here).
    sources: Type.Array(
      Type.Object({ url: Type.String({ format: 'uri' }), title: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      {
        minItems: 1,
        maxItems: MAX_SOURCES,
      },
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
