// C3: a dry run passes stages 0–2 for real, then reports what stages 3–7 would answer, with no side
// effects: no hold, no idempotency record, no model, no charge (idempotency is not consulted, so never 409).
import { Type, type Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../http/caller.ts'
import { ApiError, ErrorBody } from '../errors.ts'
import type { Capability } from '../run/registry.ts'
import type { DryRunState } from '../requests/state.ts'
import type { Services } from '../services.ts'
import { quote, Size } from '../wallet/wallet.ts'
import { quoteCall, type Quote } from './price.ts'
import { requireProvider } from './provider.ts'
import type { CallRequest } from './request.ts'
import { spendRefusal } from './spend.ts'

/** The 200 answer to `Service-Dry-Run: 1`; published as components.schemas.DryRun. */
export const DryRun = Type.Object(
  {
    dryRun: Type.Literal(true),
    endpoint: Type.String({ description: 'e.g. /v1/classify' }),
    liveStatus: Type.Integer({ description: 'the status the live call would answer now' }),
    wouldCharge: Type.Integer({ minimum: 0, description: 'credits the live call would charge (0 when it would be refused)' }),
    price: Type.Integer({ minimum: 1, description: "this input's price: the endpoint's price plus any size surcharge (x-price)" }),
    size: Type.Optional(Size),
    balance: Type.Integer({ description: 'credits available now (balance minus open holds)' }),
    error: Type.Optional(Type.Omit(ErrorBody.properties.error, ['requestId'], { description: 'the refusal the live call would get' })),
  },
  { additionalProperties: false },
)

/**
 * Stages 3 and 4 run as they do live (`admit`), then the live call's price for this input (quoteCall, documents
 * read in the decoder pool); stage 6 asks the wallet's quote, the same SQL rule reserve_call applies; stage 7
 * asks for the provider. The first refusal becomes the report's `error`, worded as live.
 */
export async function reportDryRun(
  ctx: Context,
  capability: Capability,
  services: Services,
  caller: Caller,
  admit: () => Promise<CallRequest>,
): Promise<void> {
  const spend = (price: number) => quote(services.db, caller.accountId, caller.keyId, price, services.now())
  let quoted = await spend(capability.price)
  const money: DryRunMoney = { balance: quoted.available, charge: capability.price, price: capability.price }
  await answerDryRun(ctx, capability, money, async () => {
    const call = await admit() // 3, 4
    if (call.async) requireProvider(capability, services.provider) // as live: before the document is read
    const reader = { accountId: caller.accountId, unpaid: true, decoderMs: 0 } // a dry run is never paid
    const priced = await quoteCall(capability, call.input, services, { waitForDecoder: false, reader })
    Object.assign(money, { charge: priced.credits, price: priced.credits }, priced.size ? { size: priced.size } : {})
    if (priced.credits !== capability.price) quoted = await spend(priced.credits)
    money.balance = quoted.available
    if (quoted.refusal) throw spendRefusal(priced.credits, { refusal: quoted.refusal, available: quoted.available }) // 6
    requireProvider(capability, services.provider) // 7
    return call.async ? 202 : 200
  })
}

/** What a dry run reports about money; the stages may refine it (the price of this input) before they answer. */
export interface DryRunMoney {
  balance: number
  /** what a success would charge (a test key's calls: 0) */
  charge: number
  price: number
  size?: Quote['size']
}

/** The DryRun report of `stages`, which answer the status the live call would get or throw its refusal. */
export async function answerDryRun(
  ctx: Context,
  capability: Capability,
  money: DryRunMoney,
  stages: () => Promise<200 | 202>,
): Promise<void> {
  let liveStatus: number
  let error: Static<typeof DryRun>['error']
  try {
    liveStatus = await stages()
  } catch (e) {
    // The dry run's own refusal (its account's unpaid budget is spent) is not the live call's: it answers 429 itself.
    if (!(e instanceof ApiError) || e.code === 'free_decoding_exhausted') throw e
    liveStatus = e.status
    error = { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
  }
  ctx.status = 200
  ctx.state.dryRun = { liveStatus, ...(error ? { error } : {}) } satisfies DryRunState
  const report: Static<typeof DryRun> = {
    dryRun: true,
    endpoint: `/v1/${capability.name}`,
    liveStatus,
    wouldCharge: error ? 0 : money.charge,
    price: money.price,
    ...(money.size ? { size: money.size } : {}),
    balance: money.balance,
    ...(error ? { error } : {}),
  }
  ctx.body = report
}
