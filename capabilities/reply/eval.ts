// Eval cases for /v1/reply (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, lacks, type EvalCase } from '../../devkit/eval-kit.ts'

const noPlaceholders = lacks('reply', /\[[A-Z][A-Za-z ]+\]|\{\{/)
export const evalCases: EvalCase[] = [
  {
    name: 'broken-order',
    request: {
      thread: 'Customer: My order #4411 arrived broken. This is the second time!',
      context: 'Replacement stock available. Policy: free replacement or refund.',
      tone: 'apologetic',
      goal: 'Offer a free replacement or a refund',
      senderName: 'Sam',
    },
    checks: { 'order number': contains('reply', '4411'), signed: contains('reply', 'Sam'), 'no placeholders': noPlaceholders },
  },
  {
    name: 'question',
    request: {
      thread: 'Hi, do you ship to Norway and how long does it take?',
      context: 'We ship to Norway in 5-7 business days, 15 EUR.',
      senderName: 'Ana',
    },
    checks: { 'answers the time': contains('reply', '5'), 'no placeholders': noPlaceholders },
  },
  {
    name: 'no-sender-name',
    request: { thread: 'Please cancel my subscription.', goal: 'Confirm the cancellation' },
    checks: { 'no placeholders': noPlaceholders },
  },
]
