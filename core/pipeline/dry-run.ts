// C3: a dry run passes stages 0–2 for real, then reports what stages 3–7 would answer, with no side
// effects: no hold, no idempotency record, no model, no charge (idempotency is not consulted, so never 409).
import { Type, type Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../accounts/accounts.ts'
import { ApiError, ErrorBody } from '../errors.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { quote } from '../wallet/wallet.ts'
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
    price: Type.Integer({ minimum: 1 }),
    balance: Type.Integer({ description: 'credits available now (balance minus open holds)' }),
    error: Type.Optional(Type.Omit(ErrorBody.properties.error, ['requestId'], { description: 'the refusal the live call would get' })),
  },
  { additionalProperties: false },
)

/**
 * Stages 3 and 4 run as they do live (`admit`); stage 6 asks the wallet's quote, the same SQL rule reserve_call
 * applies; stage 7 asks for the provider. The first refusal becomes the report's `error`, worded as live.
 */
export async function reportDryRun(
  ctx: Context,
  capability: Capability,
  services: Services,
  caller: Caller,
  admit: () => Promise<CallRequest>,
): Promise<void> {
  const quoted = await quote(services.db, caller.accountId, caller.keyId, capability.price, services.now())
  await answerDryRun(ctx, capability, { balance: quoted.available, charge: capability.price }, async () => {
    const call = await admit() // 3, 4
    if (quoted.refusal) throw spendRefusal(capability, { refusal: quoted.refusal, available: quoted.available }) // 6
    requireProvider(capability, services.provider) // 7
    return call.async ? 202 : 200
  })
}

/**
 * The DryRun report of `stages`, which answer the status the live call would get or throw its refusal; `charge`
 * is what a success would charge (a test key's calls: 0).
 */
export async function answerDryRun(
  ctx: Context,
  capability: Capability,
  money: { balance: number; charge: number },
  stages: () => Promise<200 | 202>,
): Promise<void> {
  let liveStatus: number
  let error: Static<typeof DryRun>['error']
  try {
    liveStatus = await stages()
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    liveStatus = e.status
    error = { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
  }
  ctx.status = 200
  const report: Static<typeof DryRun> = {
    dryRun: true,
    endpoint: `/v1/${capability.name}`,
    liveStatus,
    wouldCharge: error ? 0 : money.charge,
    price: capability.price,
    balance: money.balance,
    ...(error ? { error } : {}),
  }
  ctx.body = report
}
