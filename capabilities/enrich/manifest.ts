import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'enrich',
  summary: 'Company profile from a domain or work email',
  price: 5,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Request,
  response: Result,
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
