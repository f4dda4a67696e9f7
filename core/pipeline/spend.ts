// Stage 6's refusals (C4, C9), worded once for the live call and for the dry run that reports it.
import { ApiError } from '../errors.ts'
import type { Capability } from '../registry.ts'

export type Refused = { refusal: 'insufficient'; available: number } | { refusal: 'spend_cap' }

export function spendRefusal(capability: Capability, refused: Refused): ApiError {
  return refused.refusal === 'insufficient'
    ? new ApiError(
        'insufficient_credits',
        `This call costs ${capability.price} credits; ${refused.available} are available. Nothing was charged.`,
      )
    : new ApiError('spend_cap_reached', 'This key has reached its monthly spend cap. Nothing was charged.')
}
