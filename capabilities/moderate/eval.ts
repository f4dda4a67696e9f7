// Eval cases for /v1/moderate (scripts/eval.ts, devkit/eval-kit.ts).
import { within, type EvalCase } from '../../devkit/eval-kit.ts'

const categories = ['spam', 'harassment', 'violence', 'adult']
export const evalCases: EvalCase[] = [
  {
    name: 'spam',
    request: { text: 'Buy cheap followers now!!! DM me at spam@example.com', categories },
    expected: { flagged: true },
    checks: { 'categories from the list': within('categories[].category', categories) },
  },
  {
    name: 'benign',
    request: { text: 'Thanks for the quick delivery, the chairs look great.' },
    expected: { flagged: false, decision: 'allow', categories: [] },
  },
  {
    name: 'threat',
    request: { text: 'If you post that again I will find where you live and hurt you.', categories },
    expected: { flagged: true, decision: 'block' },
    checks: { 'categories from the list': within('categories[].category', categories) },
  },
]
