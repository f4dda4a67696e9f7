import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'contract',
  summary:
    'Parties, effective date, term, renewal, governing law, obligations, risk clauses; each value with the evidence code found in the document (evidence, grounded, confidence)',
  price: 12,
  size: { unit: 'page', included: 30, perUnit: 1 },
  async: true,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'NON-DISCLOSURE AGREEMENT between Acme Corp. ("Discloser") and Beta LLC ("Recipient"), effective March 1, 2024, for 2 years, renewing automatically for 1-year periods unless either party gives 60 days notice. Governed by the laws of Delaware.',
    },
    response: {
      contractType: 'non-disclosure agreement',
      parties: [
        {
          name: 'Acme Corp.',
          role: 'discloser',
          evidence: { page: 1, quote: 'Acme Corp. ("Discloser")' },
          grounded: true,
          confidence: 0.97,
        },
        { name: 'Beta LLC', role: 'recipient', evidence: { page: 1, quote: 'Beta LLC ("Recipient")' }, grounded: true, confidence: 0.97 },
      ],
      effectiveDate: '2024-03-01',
      term: '2 years',
      renewal: { autoRenews: true, noticePeriod: '60 days' },
      governingLaw: 'Delaware',
      obligations: ["Recipient keeps the Discloser's confidential information secret."],
      riskFlags: [
        {
          clause: 'Renewal',
          severity: 'medium',
          reason: 'Renews automatically unless cancelled 60 days ahead.',
          evidence: { page: 1, quote: 'renewing automatically for 1-year periods unless either party gives 60 days notice' },
          grounded: true,
          confidence: 0.8,
        },
      ],
      grounding: {
        effectiveDate: { evidence: { page: 1, quote: 'effective March 1, 2024' }, grounded: true, confidence: 0.95 },
        term: { evidence: { page: 1, quote: 'for 2 years' }, grounded: true, confidence: 0.9 },
        governingLaw: { evidence: { page: 1, quote: 'Governed by the laws of Delaware' }, grounded: true, confidence: 0.95 },
        'renewal.noticePeriod': { evidence: { page: 1, quote: 'gives 60 days notice' }, grounded: true, confidence: 0.9 },
      },
      warnings: [],
    },
  },
  handler,
})
