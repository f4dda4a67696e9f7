// Provider spend no call pays for. A call that fails after its model requests (a 502 for an answer that broke the
// schema twice, a part that failed, a timeout) is free to its account, but the operator paid the provider for
// those requests. Each process counts that spend per account over an hour (AI_UNPAID_USD_PER_HOUR); once it is
// used up, the account's live calls and jobs of capabilities that ask a model are refused before any model request
// (429 free_inference_exhausted, Retry-After), until the hour's window ends. Calls that succeed never count.
import { RateLimiterMemory } from 'rate-limiter-flexible'
import { ApiError } from '../errors.ts'

const MICRO_USD = 1e6

export class UnpaidInference {
  private readonly spent: RateLimiterMemory
  constructor(usdPerHour: number) {
    this.spent = new RateLimiterMemory({ points: Math.max(1, Math.round(usdPerHour * MICRO_USD)), duration: 3600, keyPrefix: 'unpaid-usd' })
  }

  /** 429 when the account's failed calls have cost the provider this hour's allowance. */
  async refuseIfSpent(accountId: string): Promise<void> {
    const used = await this.spent.get(accountId)
    if (!used || used.consumedPoints < this.spent.points) return
    const retry = Math.max(1, Math.ceil(used.msBeforeNext / 1000))
    throw new ApiError(
      'free_inference_exhausted',
      `This account's recent calls failed at the model provider and used up the hour's allowance of provider cost no call pays for; retry in ${retry} s. Nothing was charged.`,
      undefined,
      { 'Retry-After': String(retry) },
    )
  }

  /** A call of the account ended without a charge after its model requests cost the provider `usd`. */
  async draw(accountId: string, usd: number): Promise<void> {
    const points = Math.round(usd * MICRO_USD)
    if (points > 0) await this.spent.penalty(accountId, points)
  }
}
