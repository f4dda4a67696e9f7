// Eval cases for /v1/dunning (scripts/eval.ts, devkit/eval-kit.ts): amount and number in every message, no placeholders.
import { contains, count, lacks, type EvalCase } from '../../devkit/eval-kit.ts'

const noPlaceholders = lacks('sequence[].body', /\[[A-Z][A-Za-z ]+\]|\{\{/)
export const evalCases: EvalCase[] = [
  {
    name: 'firm-email',
    request: {
      invoice: { number: 'INV-2291', amount: 1250, currency: 'USD', dueDate: '2026-03-01', daysOverdue: 14 },
      customer: { name: 'Acme Corp' },
      tone: 'firm',
      channel: 'email',
      steps: 2,
    },
    checks: {
      'two steps': count('sequence[]', 2),
      'invoice number': contains('sequence[].body', 'INV-2291'),
      'no placeholders': noPlaceholders,
    },
  },
  {
    name: 'friendly-eur',
    request: {
      invoice: { number: 'R-88', amount: 480.5, currency: 'EUR', dueDate: '2026-02-10', daysOverdue: 3 },
      customer: { name: 'Weber KG' },
      tone: 'friendly',
      channel: 'email',
      steps: 1,
    },
    checks: {
      'one step': count('sequence[]', 1),
      'invoice number': contains('sequence[].body', 'R-88'),
      'no placeholders': noPlaceholders,
    },
  },
  {
    name: 'sms',
    request: {
      invoice: { number: '5531', amount: 89, currency: 'GBP', dueDate: '2026-01-20', daysOverdue: 40 },
      customer: { name: 'Tom Hale' },
      tone: 'final',
      channel: 'sms',
      steps: 3,
    },
    checks: { 'invoice number': contains('sequence[].body', '5531'), 'no placeholders': noPlaceholders },
  },
]
