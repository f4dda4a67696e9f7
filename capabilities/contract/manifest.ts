import { Type, type Static } from '@sinclair/typebox'
import { DocObject, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const NStr = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()])

export const ContractResult = Type.Object(
  {
    contractType: Type.String({ minLength: 1, maxLength: 200, description: 'lower case, e.g. "services agreement", "nda", "lease"' }),
    parties: Type.Array(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 500 }), role: Type.String({ minLength: 1, maxLength: 200 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
    effectiveDate: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 }), Type.Null()]),
    term: NStr(2000),
    renewal: Type.Union(
      [Type.Object({ autoRenews: Type.Boolean(), noticePeriod: NStr(1000) }, { additionalProperties: false }), Type.Null()],
      { description: 'null when the contract says nothing about renewal' },
    ),
    governingLaw: NStr(500),
    obligations: Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 1000 }),
    riskFlags: Type.Array(
      Type.Object(
        {
          clause: Type.String({ minLength: 1, maxLength: 1000 }),
          severity: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
          reason: Type.String({ maxLength: 5000 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000 },
    ),
    warnings: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 1000, description: "what code found wrong with the model's answer" }),
    ),
  },
  { additionalProperties: false },
)
export type ContractResult = Static<typeof ContractResult>

export default defineCapability({
  name: 'contract',
  summary: 'Parties, effective date, term, renewal, governing law, obligations, risk clauses',
  price: 12,
  async: true,
  ratePerMinute: 60,
  model: 'text',
  request: DocObject(),
  response: ContractResult,
  example: {
    request: {
      text: 'NON-DISCLOSURE AGREEMENT between Acme Corp. ("Discloser") and Beta LLC ("Recipient"), effective March 1, 2024, for 2 years, renewing automatically for 1-year periods unless either party gives 60 days notice. Governed by the laws of Delaware.',
    },
    response: {
      contractType: 'non-disclosure agreement',
      parties: [
        { name: 'Acme Corp.', role: 'discloser' },
        { name: 'Beta LLC', role: 'recipient' },
      ],
      effectiveDate: '2024-03-01',
      term: '2 years',
      renewal: { autoRenews: true, noticePeriod: '60 days' },
      governingLaw: 'Delaware',
      obligations: ["Recipient keeps the Discloser's confidential information secret."],
      riskFlags: [{ clause: 'Renewal', severity: 'medium', reason: 'Renews automatically unless cancelled 60 days ahead.' }],
      warnings: [],
    },
  },
  handler,
})
