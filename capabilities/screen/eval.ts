// Eval cases for /v1/screen (scripts/eval.ts, devkit/eval-kit.ts). Needs a provider with web search.
import { resolves, within, type EvalCase } from '../../devkit/eval-kit.ts'

const grounded = {
  'evidence for cites sources': resolves('evidenceFor[].sourceIndexes[]', 'sources'),
  'evidence against cites sources': resolves('evidenceAgainst[].sourceIndexes[]', 'sources'),
  'verdict in the enum': within('verdict', ['qualified', 'maybe', 'disqualified']),
}
export const evalCases: EvalCase[] = [
  {
    name: 'big-logistics',
    request: { lead: { company: 'DHL Group', domain: 'dhl.com' }, criteria: ['Logistics or freight company', 'At least 200 employees'] },
    expected: { verdict: 'qualified' },
    checks: grounded,
  },
  {
    name: 'wrong-industry',
    request: { lead: { company: 'Spotify', domain: 'spotify.com' }, criteria: ['Logistics or freight company'] },
    expected: { verdict: 'disqualified' },
    checks: grounded,
  },
  {
    name: 'text-criteria',
    request: { lead: 'Maersk, maersk.com', criteria: 'Shipping company with global operations', depth: 'standard' },
    checks: grounded,
  },
]
