// Eval cases for /v1/enrich (scripts/eval.ts, devkit/eval-kit.ts). Real domains: the homepage is fetched.
import { type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  { name: 'stripe', request: { domain: 'stripe.com' }, expected: { domain: 'stripe.com', grounded: true } },
  { name: 'work-email', request: { email: 'someone@shopify.com' }, expected: { domain: 'shopify.com', grounded: true } },
  { name: 'url-form', request: { domain: 'https://www.atlassian.com/software' }, expected: { domain: 'atlassian.com' } },
]
