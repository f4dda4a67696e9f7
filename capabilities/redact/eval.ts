// Eval cases for /v1/redact (scripts/eval.ts, devkit/eval-kit.ts): no PII left, whatever the model finds.
import { count, lacks, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'contact-details',
    request: { text: 'Call Jane Doe at 555-123-4567 or jane@example.com.' },
    expected: { entityCount: 3 },
    checks: { 'no PII left': lacks('redacted', 'Jane', 'Doe', '555-123-4567', 'jane@example.com') },
  },
  {
    name: 'glued-email-and-card',
    request: { text: 'Card holder jane@example.com4111 1111 1111 1111 SSN 078-05-1120' },
    checks: {
      'no PII left': lacks('redacted', 'jane@example.com', '4111', '078-05-1120'),
      'three entities at least': count('entities[]', 3, 10),
    },
  },
  {
    name: 'medical-note',
    request: {
      text: 'Patient Maria Garcia (DOB 1984-02-11), MRN 7731-22, diagnosed with type 2 diabetes; call +44 20 7946 0958.',
      types: ['name', 'dob', 'medical', 'phone'],
    },
    checks: { 'no PII left': lacks('redacted', 'Maria', 'Garcia', '1984-02-11', 'diabetes', '7946 0958') },
  },
]
