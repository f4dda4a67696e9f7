import { Type, type Static } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { check, EMPLOYEE_RANGES, handler } from './handler.ts'

const Url = Type.String({ format: 'uri' })

export const EnrichRequest = Type.Object(
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

export const EnrichResult = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    domain: Type.String({ minLength: 1, maxLength: 253, description: 'The normalised domain, computed by code from the request.' }),
    description: Type.Optional(Type.String({ minLength: 1 })),
    industry: Type.Optional(Type.String({ minLength: 1 })),
    headquarters: Type.Optional(Type.String({ minLength: 1 })),
    employeeRange: Type.Optional(Type.Unsafe<(typeof EMPLOYEE_RANGES)[number]>({ type: 'string', enum: [...EMPLOYEE_RANGES] })),
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
export type EnrichResult = Static<typeof EnrichResult>

export default defineCapability({
  name: 'enrich',
  summary: 'Company profile from a domain or work email',
  price: 5,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: EnrichRequest,
  response: EnrichResult,
  example: {
    request: { email: 'dana.ruiz@northwind-logistics.com' },
    response: {
      name: 'Northwind Logistics',
      domain: 'northwind-logistics.com',
      description: 'Regional freight forwarding and warehousing for mid-market retailers.',
      industry: 'Logistics and supply chain',
      headquarters: 'Rotterdam, Netherlands',
      employeeRange: '201-500',
      founded: 2004,
      links: { website: 'https://northwind-logistics.com/', linkedin: 'https://www.linkedin.com/company/northwind-logistics/' },
      grounded: true,
      sources: [{ url: 'https://northwind-logistics.com/', title: 'Northwind Logistics | Freight and warehousing' }],
    },
  },
  check,
  handler,
})
