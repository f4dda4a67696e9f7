// Eval cases for /v1/match (scripts/eval.ts, devkit/eval-kit.ts).
import manifest from './manifest.ts'
import { count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'companies',
    // The manifest's published example, scored.
    request: manifest.example!.request,
    checks: { 'two matches': count('matches[]', 2), 'Initech unmatched': count('unmatchedB[]', 1) },
  },
  {
    name: 'people',
    request: {
      a: [{ name: 'Jon Smith', email: 'jon@x.io' }],
      b: [
        { name: 'Jonathan Smith', email: 'JON@X.IO' },
        { name: 'Jane Smith', email: 'jane@x.io' },
      ],
    },
    checks: { 'one match': count('matches[]', 1) },
  },
  {
    name: 'nothing-matches',
    request: { a: [{ sku: 'A-1', title: 'Red mug' }], b: [{ sku: 'Z-9', title: 'Blue chair' }] },
    checks: { 'no matches': count('matches[]', 0) },
  },
]
