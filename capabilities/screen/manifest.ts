import { Type, type Static } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { DEPTHS, EMPLOYEE_RANGES, handler, MAX_EVIDENCE, MAX_SOURCES, VERDICTS } from './handler.ts'

// The lead: free text, or a flat JSON object (e.g. the result of /v1/enrich), bounded (C12).
const Scalar = Type.Union([Type.String({ maxLength: 4000 }), Type.Number(), Type.Boolean(), Type.Null()])
const ScalarList = Type.Array(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]), { maxItems: 50 })
const Nested = Type.Object({}, { additionalProperties: Scalar, maxProperties: 40, propertyNames: { maxLength: 100 } })
const Lead = Type.Union([
  Type.String({ minLength: 1, maxLength: 20_000 }),
  Type.Object(
    {},
    {
      additionalProperties: Type.Union([Scalar, ScalarList, Nested]),
      minProperties: 1,
      maxProperties: 60,
      propertyNames: { maxLength: 100 },
    },
  ),
])

export const ScreenRequest = Type.Object(
  {
    lead: Lead,
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

export const ScreenResult = Type.Object(
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
export type ScreenResult = Static<typeof ScreenResult>

export default defineCapability({
  name: 'screen',
  summary: 'Web-grounded lead qualification against ICP criteria, with evidence for and against',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  webSearch: true,
  request: ScreenRequest,
  response: ScreenResult,
  example: {
    request: {
      lead: { company: 'Northwind Logistics', domain: 'northwind-logistics.com' },
      criteria: ['Logistics or freight company', 'At least 200 employees', 'Uses SAP for ERP'],
    },
    response: {
      verdict: 'qualified',
      score: 0.82,
      evidenceFor: [
        {
          evidence: 'Northwind describes itself as a freight forwarder with warehouses in Rotterdam.',
          criterion: 'Logistics or freight company',
          sourceIndexes: [0],
        },
        { evidence: 'Its LinkedIn page lists 201-500 employees.', criterion: 'At least 200 employees', sourceIndexes: [1] },
      ],
      evidenceAgainst: [],
      unverified: ['Uses SAP for ERP'],
      profile: {
        name: 'Northwind Logistics',
        website: 'https://northwind-logistics.com/',
        industry: 'Logistics',
        employeeRange: '201-500',
      },
      sources: [
        { url: 'https://northwind-logistics.com/', title: 'Northwind Logistics' },
        { url: 'https://www.linkedin.com/company/northwind-logistics/', title: 'Northwind Logistics | LinkedIn' },
      ],
    },
  },
  handler,
})
