import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Grounded, Groundings, Nullable } from '../../core/capability.ts'

/** The single-valued fields that carry evidence (issue 29); the summary may be condensed, the skills are a list. */
export const GROUNDED = [
  'name',
  'email',
  'phone',
  'location',
  'headline',
  'yearsExperience',
  'links.linkedin',
  'links.github',
  'links.website',
] as const

const Str = (maxLength: number) => Type.String({ maxLength })
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'YYYY-MM-DD' })
export const Precision = Type.Union([Type.Literal('day'), Type.Literal('month'), Type.Literal('year'), Type.Null()], {
  description: 'how much of the date the resume states: "month" means the day is the 1st by convention, "year" means January 1st',
})

export const Experience = Type.Object(
  {
    title: Str(300),
    company: Str(300),
    startDate: Nullable(IsoDate),
    endDate: Nullable(IsoDate, { description: 'null when the role is current or the end is not stated' }),
    // Optional additions (README): what the dates really say.
    startDatePrecision: Type.Optional(Precision),
    endDatePrecision: Type.Optional(Precision),
    current: Type.Optional(Type.Boolean({ description: 'the resume says the role is ongoing ("present")' })),
    highlights: Type.Array(Str(2000), { maxItems: 200 }),
    ...Grounded,
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 300 }),
    email: Nullable(Str(320)),
    phone: Nullable(Str(100)),
    location: Nullable(Str(300)),
    headline: Nullable(Str(500)),
    summary: Nullable(Str(5000)),
    yearsExperience: Nullable(Type.Number({ minimum: 0, maximum: 80 })),
    skills: Type.Array(Str(200), { maxItems: 500 }),
    experience: Type.Array(Experience, { maxItems: 200 }),
    education: Type.Array(
      Type.Object(
        {
          degree: Nullable(Str(300)),
          school: Str(300),
          year: Nullable(Type.Integer({ minimum: 1900, maximum: 2100 })),
          ...Grounded,
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
    links: Type.Object(
      { linkedin: Nullable(Str(2048)), github: Nullable(Str(2048)), website: Nullable(Str(2048)) },
      { additionalProperties: false },
    ),
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Str(1000), { maxItems: 500, description: 'what code found wrong with the answer and did not silently fix' }),
    ),
  },
  { additionalProperties: false },
)
export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
