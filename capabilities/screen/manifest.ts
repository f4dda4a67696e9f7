import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'screen',
  summary: 'Web-grounded lead qualification against ICP criteria, with evidence for and against',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  webSearch: true,
  request: Request,
  response: Result,
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
