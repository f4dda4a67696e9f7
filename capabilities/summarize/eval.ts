// Eval cases for /v1/summarize (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'standup',
    request: {
      text: 'Ana: the March invoice run failed again. Ben: I will patch the retry logic by Friday. Ana: good, then we re-run.',
      length: 'brief',
    },
    checks: { 'mentions the invoice run': contains('summary', 'invoice'), 'an action item for Ben': contains('actionItems', 'Ben') },
  },
  {
    name: 'article',
    request: {
      text: 'The city council approved a 12% increase in the public transport budget on Tuesday. The money funds 40 new electric buses and longer night service from September. Critics say fares will still rise in 2025.',
    },
    checks: { 'mentions buses': contains('summary', 'bus'), 'key points given': count('keyPoints[]', 1, 10) },
  },
  {
    name: 'no-actions',
    request: { text: 'The sun rose over the hills. Birds sang. It was a quiet morning in the valley, with mist over the river.' },
    checks: { 'no invented action items': count('actionItems[]', 0) },
  },
]
