// Eval cases for /v1/research (scripts/eval.ts, devkit/eval-kit.ts). Needs a provider with web search.
import { count, resolves, type EvalCase } from '../../devkit/eval-kit.ts'

const cited = { 'findings cite sources': resolves('findings[].sourceIndexes[]', 'sources'), 'some sources': count('sources[]', 1, 100) }
export const evalCases: EvalCase[] = [
  {
    name: 'heat-pumps',
    request: { query: 'State of heat-pump adoption in European homes', focus: 'policy drivers since 2022', depth: 'standard' },
    checks: cited,
  },
  { name: 'ev-charging', request: { query: 'Public EV charging growth in the United States', depth: 'standard' }, checks: cited },
  { name: 'small-question', request: { query: 'When did the euro become legal tender in Croatia?' }, checks: { ...cited } },
]
