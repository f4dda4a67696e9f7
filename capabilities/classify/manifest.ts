import { ambiguousEntry, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'classify',
  summary: 'Label text against a taxonomy: label, confidence, one-line rationale',
  price: 2,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  // Labels are matched case-insensitively (the model's "Billing" is the caller's "billing"), so two labels that
  // differ only in case or surrounding spaces could not be told apart: refused before any money moves.
  check: (input: { labels: string[] }) =>
    ambiguousEntry(input.labels, '/labels', (l) => l.trim().toLowerCase(), {
      blank: 'must not be blank',
      repeat: (l) => `"${l}" repeats another label (labels are matched case-insensitively)`,
    }),
  response: Result,
  example: {
    request: { text: 'My card was charged twice for the same order.', labels: ['billing', 'technical', 'shipping'] },
    response: { label: 'billing', confidence: 0.93, rationale: 'A duplicate charge is a billing problem.' },
  },
  handler,
})
