// Eval cases for /v1/sentiment (scripts/eval.ts, devkit/eval-kit.ts).
import { between, count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'negative',
    request: { text: 'Terrible. It broke on day one and support ignored me for a week.' },
    expected: { sentiment: 'negative' },
    checks: { 'score below 0': between('score', -1, -0.01) },
  },
  {
    name: 'positive',
    request: { text: 'Absolutely love it: fast delivery, great build, and it just works.' },
    expected: { sentiment: 'positive' },
    checks: { 'score above 0': between('score', 0.01, 1) },
  },
  {
    name: 'aspects',
    request: {
      text: 'Delivery was fast, but the blender broke after two days and support never answered.',
      aspects: ['delivery', 'quality', 'support', 'price'],
    },
    expected: {
      aspects: [
        { aspect: 'delivery', sentiment: 'positive' },
        { aspect: 'quality', sentiment: 'negative' },
        { aspect: 'support', sentiment: 'negative' },
        { aspect: 'price', mentioned: false },
      ],
    },
    checks: { 'one entry per aspect asked': count('aspects[]', 4) },
  },
]
