import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'resume',
  summary: 'Resume into a candidate profile; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 8,
  size: { unit: 'page', included: 5, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'merge',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'Jane Doe\njane@example.com\nSoftware Engineer, Acme (Mar 2019 - present)\n- Built the billing system\nSkills: Go, SQL',
    },
    response: {
      name: 'Jane Doe',
      email: 'jane@example.com',
      phone: null,
      location: null,
      headline: 'Software Engineer',
      summary: null,
      yearsExperience: null,
      skills: ['Go', 'SQL'],
      experience: [
        {
          title: 'Software Engineer',
          company: 'Acme',
          startDate: '2019-03-01',
          endDate: null,
          startDatePrecision: 'month',
          endDatePrecision: null,
          current: true,
          highlights: ['Built the billing system'],
          evidence: { page: 1, quote: 'Software Engineer, Acme (Mar 2019 - present)' },
          grounded: true,
          confidence: 0.95,
        },
      ],
      education: [],
      links: { linkedin: null, github: null, website: null },
      grounding: {
        name: { evidence: { page: 1, quote: 'Jane Doe' }, grounded: true, confidence: 0.98 },
        email: { evidence: { page: 1, quote: 'jane@example.com' }, grounded: true, confidence: 0.98 },
        headline: { evidence: { page: 1, quote: 'Software Engineer' }, grounded: true, confidence: 0.8 },
      },
      warnings: [],
    },
  },
  handler,
})
