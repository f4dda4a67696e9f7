// C3: a dry run passes stages 0–2 for real, then reports what stages 3–7 would answer, with no side
// effects: no hold, no idempotency record, no model, no charge.
import { Type, type Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../accounts/accounts.ts'
import { ApiError, ErrorBody } from '../errors.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { quote } from '../wallet/wallet.ts'
import { checkPaused } from './paused.ts'
import { readRequest } from './request.ts'
import { requireProvider } from './result.ts'

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

export async function dryRunReport(
  ctx: Context,
  cap: Capability,
  services: Services,
  caller: Caller,
  readBody: (ctx: Context) => Promise<unknown>,
): Promise<void> {
  const q = await quote(services.db, caller.accountId, caller.keyId, cap.price, services.now())
  let liveStatus: number
  let error: Static<typeof DryRun>['error']
  try {
    checkPaused(services.config, cap)
    const call = await readRequest(ctx, cap, services, readBody, 'live')
    if (q.outcome === 'insufficient')
      throw new ApiError('insufficient_credits', `This call costs ${cap.price} credits; ${q.available} are available.`)
    if (q.outcome === 'cap') throw new ApiError('spend_cap_reached', 'This key has reached its monthly spend cap.')
    requireProvider(cap, services.provider)
    liveStatus = call.async ? 202 : 200
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    liveStatus = e.status
    error = { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
  }
  ctx.status = 200
  const report: Static<typeof DryRun> = {
    dryRun: true,
    endpoint: `/v1/${cap.name}`,
    liveStatus,
    wouldCharge: liveStatus === 200 || liveStatus === 202 ? cap.price : 0,
    price: cap.price,
    balance: q.available,
    ...(error ? { error } : {}),
  }
  ctx.body = report
}
