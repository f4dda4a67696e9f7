// Eval fixtures for /v1/contract (scripts/eval.ts): known terms of the contract in devkit/fixtures/documents.ts.
import { pdf, type GroundingCase } from '../../devkit/eval-kit.ts'
import { contractA, contractB } from '../../devkit/fixtures/documents.ts'
import { GROUNDED } from './schema.ts'
import { supported } from '../../devkit/evidence.ts'

const file = (name: string) => ({ file: pdf(name) })

const expected = (c: typeof contractA) => ({
  contractType: c.contractType,
  parties: c.parties,
  effectiveDate: c.effectiveDate,
  governingLaw: c.governingLaw,
  // The contract has no renewal clause.
  renewal: null,
})

export const evalCases = [
  { name: 'contract-v1-pdf', request: file('contract-v1'), expected: expected(contractA) },
  { name: 'contract-v2-pdf', request: file('contract-v2'), expected: expected(contractB) },
  { name: 'contract-v1-text', request: { text: contractA.toText() }, expected: expected(contractA) },
]
export const align = { parties: 'set' }

/** Issue 29: contract-v1 as text, answered right with every value quoted (test/evidence-eval.test.ts). */
export const groundingCase: GroundingCase = {
  request: { text: contractA.toText() },
  answer: supported(
    {
      contractType: 'services agreement',
      parties: contractA.parties,
      effectiveDate: contractA.effectiveDate,
      term: '24 months',
      renewal: null,
      governingLaw: contractA.governingLaw,
      obligations: ['Client pays the monthly fee.'],
      riskFlags: [{ clause: '5. Termination', severity: 'medium', reason: 'Either party may leave with 30 days notice.' }],
    },
    contractA.toPages(),
    { parties: ['name'], riskFlags: ['clause'] },
    GROUNDED,
  ),
}
