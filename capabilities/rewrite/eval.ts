// Eval cases for /v1/rewrite (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'shorter',
    request: {
      text: 'Our platform provides users with the ability to efficiently manage all of their invoices in one single place.',
      voice: 'plain, confident, friendly',
      length: 'shorter',
      preserve: ['invoices'],
    },
    checks: {
      'keeps "invoices"': contains('rewritten', 'invoices'),
      shorter: (r) => typeof r.rewritten === 'string' && r.rewritten.length < 110,
    },
  },
  {
    name: 'formal',
    request: { text: 'hey, cant make it tmrw, can we do thu?', voice: 'formal business email' },
    checks: { 'keeps Thursday': contains('rewritten', 'thursday') },
  },
  {
    name: 'preserve-number',
    request: {
      text: 'The fee is 4.5% per transaction, capped at EUR 20, billed monthly in arrears.',
      voice: 'simple',
      preserve: ['4.5%', 'EUR 20'],
    },
    checks: { 'keeps 4.5%': contains('rewritten', '4.5%'), 'keeps EUR 20': contains('rewritten', 'EUR 20') },
  },
]
