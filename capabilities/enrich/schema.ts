// /v1/enrich: the request (a domain or a work e-mail) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from '../../core/capability.ts'

export const EMPLOYEE_RANGES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+'] as const

const Url = Type.String({ format: 'uri' })

export const Request = Type.Object(
  {
    // A bare domain or a URL ("https://www.acme.com/about"): code keeps the host. At least one dot, no "@".
    domain: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 2048,
        pattern: '^\\s*(?:[Hh][Tt][Tt][Pp][Ss]?://)?[^\\s/?#@:]+\\.[^\\s/?#@:]+(?::[0-9]{1,5})?(?:[/?#]\\S*)?\\s*$',
      }),
    ),
    // A work e-mail: the company's domain is the part after "@"; free-mail providers are refused (422).
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
  },
  { additionalProperties: false, oneOf: [{ required: ['domain'] }, { required: ['email'] }] },
)

export const Result = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    domain: Type.String({ minLength: 1, maxLength: 253, description: 'The normalised domain, computed by code from the request.' }),
    description: Type.Optional(Type.String({ minLength: 1 })),
    industry: Type.Optional(Type.String({ minLength: 1 })),
    headquarters: Type.Optional(Type.String({ minLength: 1 })),
    employeeRange: Type.Optional(StringEnum(EMPLOYEE_RANGES)),
    founded: Type.Optional(Type.Integer({ minimum: 1600 })),
    links: Type.Object(
      {
        website: Type.Optional(Url),
        linkedin: Type.Optional(Url),
        twitter: Type.Optional(Url),
        github: Type.Optional(Url),
        facebook: Type.Optional(Url),
        instagram: Type.Optional(Url),
        youtube: Type.Optional(Url),
        crunchbase: Type.Optional(Url),
      },
      { additionalProperties: false },
    ),
    grounded: Type.Boolean({
      description:
        'True only when web evidence was used: the homepage was fetched and had text, or the web search returned sources. Set by code.',
    }),
    // Optional addition (README.md): the web evidence used: the homepage, then web search results.
    sources: Type.Optional(Type.Array(Type.Object({ url: Url, title: Type.String() }, { additionalProperties: false }), { maxItems: 21 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
