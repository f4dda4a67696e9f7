// Eval cases for /v1/review-reply (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'bad-pizza',
    request: {
      review: 'Waited 40 minutes for a cold pizza and the server ignored us.',
      rating: 2,
      business: { name: "Luigi's" },
      resolution: 'Offer a free meal on the next visit.',
    },
    expected: { sentiment: 'negative' },
    checks: { 'offers the meal': contains('reply', 'meal') },
  },
  {
    name: 'praise',
    request: { review: 'Best espresso in town, friendly staff!', rating: 5, business: { name: 'Bean There' } },
    expected: { sentiment: 'positive', escalate: false },
  },
  {
    name: 'food-poisoning',
    request: { review: 'Got food poisoning after the chicken, spent the night in hospital.', rating: 1, business: { name: 'Grill House' } },
    expected: { sentiment: 'negative', escalate: true },
  },
]
