// Eval cases for /v1/minutes (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'beta',
    request: {
      transcript:
        'Dana: We ship the beta on the 14th. Lee, can you write the release notes by Wednesday? Lee: Sure. Dana: Pricing for the beta is still open.',
      attendees: ['Dana Ortiz', 'Lee Chen'],
      meetingDate: '2025-03-10',
    },
    checks: {
      'an action for Lee': contains('actionItems', 'Lee'),
      'pricing is open': contains('openQuestions', 'pricing'),
      'one decision at least': count('decisions[]', 1, 10),
    },
  },
  {
    name: 'no-decisions',
    request: { transcript: 'Ana: just a quick sync, nothing new from my side. Ben: same here, see you next week.' },
    checks: { 'no decisions': count('decisions[]', 0), 'no actions': count('actionItems[]', 0) },
  },
  {
    name: 'budget',
    request: {
      transcript:
        'Kim: we agreed to cut the travel budget by 20%. Raj will update the forecast by Friday. Kim: still unclear who approves conference trips.',
      attendees: ['Kim', 'Raj'],
    },
    checks: { 'an action for Raj': contains('actionItems', 'Raj'), 'the decision': contains('decisions', '20') },
  },
]
