// Service-Test-Outcome: a test key's call answers the named error as a live call would answer it, with its
// status, body and headers, at the stage where the live call meets it: a 429 before the body is read, a refusal of
// the money or the key after validation and pricing, a model failure where the model would run (for an async
// call: the job fails, after its 202). Each error is the one the live stage throws, taken from that stage, with
// the real figures (this input's price, the credits available), and its message says it was simulated.
import type { Context } from 'koa'
import type { KeyMode } from '../http/caller.ts'
import { ApiError, type ErrorCode } from '../errors.ts'
import { answerClaimed } from '../idempotency/idempotency.ts'
import { spendRefusal } from './spend.ts'
import { rateLimited } from './throttle.ts'
import type { Capability } from '../run/registry.ts'

/** What the live stage would have known: this input's price and the account's available credits. */
export interface Figures {
  price: number
  available: number
}

/** A 429 comes before the body is read or priced; the later stages know the figures. */
export type TestOutcome =
  | { stage: 'throttle'; error(ctx: Context, capability: Capability): ApiError }
  | { stage: 'admission' | 'run'; error(ctx: Context, capability: Capability, figures: Figures): ApiError }

/** The error a live stage throws, from the stage itself (its words and headers stay the live ones). */
function thrownBy(stage: () => void): ApiError {
  try {
    stage()
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('the stage did not refuse')
}

/** The live error, its message saying it was simulated (status, code, details and headers unchanged). */
function simulated(e: ApiError): ApiError {
  return new ApiError(e.code, `Simulated by Service-Test-Outcome: ${e.message}`, e.details, e.headers)
}

/** Where the live words depend on the model or the input, the simulation says what it is. */
function modelSays(code: ErrorCode, what: string): ApiError {
  return simulated(new ApiError(code, `${what}; nothing was charged.`))
}

export const TEST_OUTCOMES: Record<string, TestOutcome> = {
  rate_limited: {
    stage: 'throttle',
    error: (ctx) => {
      ctx.set('RateLimit-Remaining', '0')
      return simulated(rateLimited(Number(ctx.response.get('RateLimit-Limit')), Number(ctx.response.get('RateLimit-Reset'))))
    },
  },
  insufficient_credits: {
    stage: 'admission',
    error: (_, __, figures) => simulated(spendRefusal(figures.price, { refusal: 'insufficient', available: figures.available })),
  },
  spend_cap_reached: { stage: 'admission', error: (_, __, figures) => simulated(spendRefusal(figures.price, { refusal: 'spend_cap' })) },
  idempotency_key_in_use: { stage: 'admission', error: (ctx) => simulated(thrownBy(() => answerClaimed(ctx, { outcome: 'in_use' }))) },
  idempotency_key_reused: { stage: 'admission', error: (ctx) => simulated(thrownBy(() => answerClaimed(ctx, { outcome: 'reused' }))) },
  inference_unavailable: { stage: 'admission', error: () => modelSays('inference_unavailable', 'The model provider is unavailable') },
  inference_failed: { stage: 'run', error: () => modelSays('inference_failed', 'The model provider failed') },
  unprocessable: { stage: 'run', error: () => modelSays('unprocessable', 'The input cannot be processed') },
  internal_error: { stage: 'run', error: () => modelSays('internal_error', 'Something went wrong on our side') },
  service_unavailable: {
    stage: 'admission',
    error: () =>
      simulated(new ApiError('service_unavailable', 'The service is unavailable; nothing was charged.', undefined, { 'Retry-After': '2' })),
  },
  document_too_complex: { stage: 'run', error: () => modelSays('document_too_complex', 'The document is over a decoding limit') },
  document_unreadable: { stage: 'run', error: () => modelSays('document_unreadable', 'The document cannot be read') },
  document_encrypted: { stage: 'run', error: () => modelSays('document_encrypted', 'The document needs a password') },
  document_too_long: { stage: 'run', error: () => modelSays('document_too_long', "The input is over the model's context budget") },
}

const HEADER = 'service-test-outcome'

/**
 * The outcome a call asks for, or null. Only a test key may ask: on a live key the header is refused rather
 * than ignored, so a client never believes it simulated what a live key really did.
 */
export function requestedOutcome(ctx: Context, mode: KeyMode): TestOutcome | null {
  const raw = ctx.headers[HEADER]
  if (raw === undefined) return null
  const outcome = typeof raw === 'string' && Object.hasOwn(TEST_OUTCOMES, raw) ? TEST_OUTCOMES[raw]! : null
  if (mode === 'live')
    throw new ApiError('invalid_request', 'Service-Test-Outcome is for test keys (ksk_test_…) only.', [
      { path: 'header:Service-Test-Outcome', message: 'not allowed with a live key' },
    ])
  if (!outcome)
    throw new ApiError('invalid_request', `Service-Test-Outcome must be one of ${Object.keys(TEST_OUTCOMES).join(', ')}.`, [
      { path: 'header:Service-Test-Outcome', message: 'not a simulated outcome' },
    ])
  return outcome
}
