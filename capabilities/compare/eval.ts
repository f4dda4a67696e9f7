// Eval fixtures for /v1/compare (scripts/eval.ts): two versions of a contract with exactly three known changes.
import { contractA, contractB, contractChanges } from '../../devkit/fixtures/documents.ts'
import { pdf, type EvalCase } from '../../devkit/eval-kit.ts'

const file = (name: string) => ({ file: pdf(name) })

// before/after are the shortest quotes that show each change; a grader should accept longer quotes containing them.
const expected = { changeCount: contractChanges.length, changes: contractChanges.map((c) => ({ ...c })) }

// Changes are found by section, and a longer quote that contains the expected one is right.
export const align = { changes: 'section' }
export const compare = { 'changes[].before': 'contains', 'changes[].after': 'contains' } as const

export const evalCases: EvalCase[] = [
  { name: 'compare-contract-pdf', request: { a: file('contract-v1'), b: file('contract-v2') }, expected },
  { name: 'compare-contract-text', request: { a: { text: contractA.toText() }, b: { text: contractB.toText() } }, expected },
  {
    name: 'compare-identical',
    request: { a: file('contract-v1'), b: { text: contractA.toText() } },
    expected: { changeCount: 0, changes: [] },
  },
]
