// Eval cases for /v1/memory (scripts/eval.ts, devkit/eval-kit.ts). Cases run in order: store, then search.
import { contains, type EvalCase } from '../../devkit/eval-kit.ts'

const namespace = `eval-${Date.now()}`
export const evalCases: EvalCase[] = [
  {
    name: 'store-coffee',
    request: { op: 'store', namespace, content: 'Dana prefers oat-milk flat whites and no sugar.' },
    expected: { op: 'store', namespace },
  },
  {
    name: 'store-travel',
    request: { op: 'store', namespace, content: 'Dana flies from Rotterdam and prefers aisle seats.' },
    expected: { op: 'store' },
  },
  {
    name: 'search-drink',
    request: { op: 'search', namespace, query: 'preferred drink', limit: 3 },
    checks: { 'finds the coffee memory': contains('results[].content', 'flat white') },
  },
]
