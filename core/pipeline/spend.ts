// Stage 6's refusals (C4, C9), worded once for the live call and for the dry run that reports it.
import { ApiError } from '../errors.ts'
import type { Capability } from '../registry.ts'
import type { SpendRefusal } from '../wallet/wallet.ts'

export function spendRefusal(capability: Capability, refusal: SpendRefusal, available: number): ApiError {
  return refusal === 'insufficient'
    ? new ApiError('insufficient_credits', `This call costs ${capability.price} credits; ${available} are available. Nothing was charged.`)
    : new ApiError('spend_cap_reached', 'This key has reached its monthly spend cap. Nothing was charged.')
}
