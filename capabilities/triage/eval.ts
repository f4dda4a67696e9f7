// Eval cases for /v1/triage (scripts/eval.ts, devkit/eval-kit.ts).
import { within, type EvalCase } from '../../devkit/eval-kit.ts'

const categories = ['access', 'billing', 'bug', 'feature request']
const teams = ['support', 'engineering', 'finance']
const inLists = { 'category in list': within('category', categories), 'team in list': within('team', teams) }
export const evalCases: EvalCase[] = [
  {
    name: 'locked-out',
    request: {
      ticket: 'Our whole team has been locked out since this morning and we have a launch in two hours. Please help!',
      categories,
      teams,
    },
    expected: { category: 'access' },
    checks: { ...inLists, urgent: within('priority', ['urgent', 'high', 'p1', 'P1']) },
  },
  {
    name: 'invoice',
    request: { ticket: "Hi, could you resend last month's invoice with our new VAT number? No rush.", categories, teams },
    expected: { category: 'billing', team: 'finance' },
    checks: inLists,
  },
  {
    name: 'idea',
    request: { ticket: 'It would be nice to export reports as CSV some day.', categories, teams },
    expected: { category: 'feature request' },
    checks: inLists,
  },
]
