// POST /v1/<name>: the stages of C1 in their order. Each stage either passes or throws an ApiError; once a
// hold is placed, any failure releases it, so a failed call is never charged.
import type { Context, Middleware } from 'koa'
import { ApiError } from '../errors.ts'
import { acceptJob } from '../jobs/accept.ts'
import { ClientGone } from '../models/generate.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { balances, capture, release, reserve, type ReserveOutcome } from '../wallet/wallet.ts'
import { authenticate } from './auth.ts'
import { capabilityContext } from './context.ts'
import { dryRunReport } from './dry-run.ts'
import { checkPaused } from './paused.ts'
import { dryRunMode, makeBodyReader, readRequest } from './request.ts'
import { throttle } from './throttle.ts'
import { checkResult, requireProvider } from './result.ts'

export const SYNC_HOLD_TTL_SECONDS = 300

export function capabilityCall(cap: Capability, services: Services): Middleware {
  const readBody = makeBodyReader(services.config.bodyLimitBytes)
  const perMinute = services.config.rateLimits[cap.name] ?? cap.ratePerMinute

  return async (ctx) => {
    const requestId: string = ctx.state.requestId
    const caller = await authenticate(ctx, services.keys) // 1
    await throttle(ctx, services.limiter, cap.name, caller.keyId, perMinute) // 2
    const mode = dryRunMode(ctx)
    if (mode === 'dry') return dryRunReport(ctx, cap, services, caller, readBody) // C3: stages 3–6 reported, not returned
    checkPaused(services.config, cap) // 3
    const call = await readRequest(ctx, cap, services, readBody, mode) // 4

    const base = { accountId: caller.accountId, keyId: caller.keyId, price: cap.price, endpoint: cap.name, requestId, now: services.now() }
    const idempotency = call.idempotency
    if (call.async) {
      requireProvider(cap, services.provider)
      const accepted = await acceptJob(services, { ...base, idempotency, input: call.input, callbackUrl: call.callbackUrl }) // 5, 6, 7
      if (accepted.outcome !== 'accepted') return answerRefusal(ctx, accepted, cap, caller.accountId, services)
      ctx.status = 202
      ctx.type = 'application/json'
      ctx.body = accepted.body
      return
    }

    const held = await reserve(services.db, { ...base, holdTtlSeconds: SYNC_HOLD_TTL_SECONDS, idempotency }) // 5, 6
    if (held.outcome !== 'ok') return answerRefusal(ctx, held, cap, caller.accountId, services)

    const disconnected = new AbortController()
    const onClose = () => {
      if (!ctx.res.writableFinished) disconnected.abort()
    }
    ctx.res.once('close', onClose)
    let body: string
    try {
      requireProvider(cap, services.provider)
      const context = capabilityContext(services, cap, {
        requestId,
        accountId: caller.accountId,
        signal: disconnected.signal,
        timeoutMs: services.config.syncModelTimeoutMs,
      })
      const result = await cap.handler(call.input as never, context) // 7
      const published = checkResult(cap, result, services.log)
      body = (await capture(services.db, held.holdId, published, idempotency?.key ?? null, services.now())).body // 8
      ctx.state.credits = cap.price
    } catch (e) {
      await release(services.db, held.holdId, idempotency?.key ?? null)
      if (e instanceof ClientGone) return // nobody to answer; the call was free
      throw e
    } finally {
      ctx.res.off('close', onClose)
    }
    ctx.status = 200 // 9
    ctx.type = 'application/json'
    ctx.body = body
  }
}

/** The outcomes of stages 5 and 6 other than a fresh hold. */
async function answerRefusal(
  ctx: Context,
  r: Exclude<ReserveOutcome, { outcome: 'ok' }>,
  cap: Capability,
  accountId: string,
  services: Services,
): Promise<void> {
  switch (r.outcome) {
    case 'replay':
      ctx.status = r.status
      ctx.type = 'application/json'
      ctx.set('Idempotent-Replayed', 'true')
      ctx.body = r.body
      return
    case 'in_use':
      throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry shortly.', undefined, {
        'Retry-After': '1',
      })
    case 'reused':
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request in the last 24 hours.')
    case 'insufficient': {
      const b = await balances(services.db, accountId)
      throw new ApiError(
        'insufficient_credits',
        `This call costs ${cap.price} credits; ${b?.available ?? 0} are available. Nothing was charged.`,
      )
    }
    case 'cap':
      throw new ApiError('spend_cap_reached', 'This key has reached its monthly spend cap. Nothing was charged.')
  }
}
