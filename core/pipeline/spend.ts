// Stage 6's refusals (C4, C9), worded once for the live call and for the dry run that reports it.
import { ApiError } from '../errors.ts'

export type Refused = { refusal: 'insufficient'; available: number } | { refusal: 'spend_cap' }

/** `price`: this call's price (for a size-priced endpoint, the price of its input). */
export function spendRefusal(price: number, refused: Refused): ApiError {
  return refused.refusal === 'insufficient'
    ? new ApiError('insufficient_credits', `This call costs ${price} credits; ${refused.available} are available. Nothing was charged.`)
    : new ApiError('spend_cap_reached', 'This key has reached its monthly spend cap. Nothing was charged.')
}
