// Eval cases for /v1/categorize (scripts/eval.ts, devkit/eval-kit.ts).
import { count, within, type EvalCase } from '../../devkit/eval-kit.ts'

const taxonomy = ['billing', 'technical', 'shipping']
export const evalCases: EvalCase[] = [
  {
    name: 'three-tickets',
    request: { items: ['Refund for order #1182 not received', 'App crashes when I open settings', 'Package arrived damaged'], taxonomy },
    checks: { 'one result per item': count('results[]', 3), 'categories in taxonomy': within('results[].category', taxonomy) },
  },
  {
    name: 'expenses',
    request: { items: ['Uber to airport 34.20', 'AWS invoice March', "Team lunch at Nando's"], taxonomy: ['travel', 'software', 'meals'] },
    checks: {
      'one result per item': count('results[]', 3),
      'categories in taxonomy': within('results[].category', ['travel', 'software', 'meals']),
    },
  },
  {
    name: 'single-item',
    request: { items: ['Invoice shows the wrong VAT number'], taxonomy },
    checks: { 'one result': count('results[]', 1), 'category in taxonomy': within('results[].category', taxonomy) },
  },
]
