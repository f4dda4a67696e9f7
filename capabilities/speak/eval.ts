// Eval cases for /v1/speak (scripts/eval.ts, devkit/eval-kit.ts): the duration is measured from the audio.
import { between, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'short',
    request: { text: 'Your order has shipped and will arrive on Thursday.', voice: 'nova', pace: 'normal' },
    checks: { 'about 2-8 s': between('durationSec', 1, 10) },
  },
  {
    name: 'slow',
    request: { text: 'Please hold. Your call is important to us.', pace: 'slow' },
    checks: { 'a few seconds': between('durationSec', 1, 12) },
  },
  {
    name: 'longer',
    request: {
      text: 'Welcome to the quarterly update. Revenue grew eight percent, costs were flat, and we hired twelve people across three offices.',
    },
    checks: { 'several seconds': between('durationSec', 4, 30) },
  },
]
