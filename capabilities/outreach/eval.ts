// Eval cases for /v1/outreach (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, count, lacks, type EvalCase } from '../../devkit/eval-kit.ts'

const sender = { name: 'Sam Lee', role: 'Account Executive', company: 'Ledgerly' }
const product = 'Ledgerly: automated invoice capture and three-way matching for mid-market finance teams.'
const noPlaceholders = lacks('sequence[].body', /\[(Your|Their|Company|Name)[^\]]*\]|\{\{/)
export const evalCases: EvalCase[] = [
  {
    name: 'vp-finance',
    request: {
      lead: { name: 'Dana Ruiz', title: 'VP Finance', company: 'Northwind Logistics', notes: 'Hiring two AP clerks' },
      product,
      sender,
      channel: 'email',
      steps: 2,
    },
    checks: {
      'two steps': count('sequence[]', 2),
      'names the company': contains('sequence[].body', 'Northwind'),
      'no placeholders': noPlaceholders,
    },
  },
  {
    name: 'linkedin',
    request: {
      lead: { name: 'Priya Shah', title: 'Controller', company: 'Brightside Retail' },
      product,
      sender,
      channel: 'linkedin',
      steps: 1,
    },
    checks: { 'one step': count('sequence[]', 1), 'no placeholders': noPlaceholders },
  },
  {
    name: 'sparse-lead',
    request: { lead: { company: 'Initech' }, product, sender, channel: 'email', steps: 3 },
    checks: { 'three steps': count('sequence[]', 3), 'no placeholders': noPlaceholders },
  },
]
