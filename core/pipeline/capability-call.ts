// POST /v1/<name>: the stages of C1 in their order. Each stage either passes or throws an ApiError; once a
// hold is placed, any failure releases it, so a failed call is never charged. A dry run (C3) goes through the
// same stages 1–4 and reports what stages 5–7 would answer.
import type Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Caller } from '../http/caller.ts'
import { enterCache, type CacheTurn, type Holding } from '../cache/turn.ts'
import { answerClaimed, priorAnswer } from '../idempotency/idempotency.ts'
import { acceptJob } from '../jobs/accept.ts'
import { callbackWarnings } from '../webhooks/webhooks.ts'
import { answerAccepted } from '../idempotency/answer.ts'
import { ClientGone } from '../models/generate.ts'
import type { Capability } from '../run/registry.ts'
import type { Reader } from '../documents/sandbox.ts'
import type { ResolvedDocument } from '../documents/schema.ts'
import { DOCUMENT_DIGESTS } from '../documents/same-document.ts'
import { capabilityContext } from '../run/context.ts'
import { checkResult } from '../run/result.ts'
import type { Services } from '../services.ts'
import { isUnavailable } from '../db/faults.ts'
import { unsettled } from '../wallet/unsettled.ts'
import { testModeCall } from './test-mode.ts'
import { requestedOutcome } from './test-outcomes.ts'
import { inAccountTurn, reserve, type ReserveOutcome } from '../wallet/wallet.ts'
import { ChargeRefused, creditLeases } from '../wallet/lease.ts'
import { authenticate } from '../http/auth.ts'
import { reportDryRun } from './dry-run.ts'
import { checkPaused } from './paused.ts'
import { requireProvider } from './provider.ts'
import { requireCapability, type AccessGuard } from '../http/permissions.ts'
import { quoteCall, type Quote } from './price.ts'
import { makeBodyReader } from '../http/body.ts'
import { strictRouter } from '../http/routing.ts'
import { dryRunMode, readRequest, type CallRequest, type DryRunMode } from './request.ts'
import { spendRefusal } from './spend.ts'
import { throttle } from './throttle.ts'

export const SYNC_HOLD_TTL_SECONDS = 300

/** POST /v1/<name> for every capability the server loaded. */
export function capabilityRouter(services: Services): Router {
  const router = strictRouter()
  for (const cap of services.capabilities.values()) router.post(`/v1/${cap.name}`, capabilityCall(cap, services))
  return router
}

export function capabilityCall(capability: Capability, services: Services): AccessGuard {
  const readBody = makeBodyReader(services.config.bodyLimitBytes)
  const perMinute = services.config.rateLimits[capability.name] ?? capability.ratePerMinute
  /** Stages 3 and 4, the same for live calls and dry runs. */
  const admit = async (ctx: Context, mode: DryRunMode): Promise<CallRequest> => {
    checkPaused(services.config, capability) // 3
    return readRequest(ctx, capability, services, readBody, mode) // 4
  }
  const testCall = testModeCall(capability, services)

  const call: Middleware = async (ctx) => {
    const caller = await authenticate(ctx, services.keys) // 1
    requireCapability(caller, capability.name) // the key's scope, from the cached key: before anything is read or held
    await throttle(ctx, services.limiter, capability.name, caller.keyId, perMinute) // 2
    if (caller.mode === 'test') return testCall(ctx, caller, (mode) => admit(ctx, mode)) // the example, never a charge
    requestedOutcome(ctx, 'live') // refuses Service-Test-Outcome
    const mode = dryRunMode(ctx)
    if (mode === 'dry') return reportDryRun(ctx, capability, services, caller, () => admit(ctx, mode))
    // Its failed calls cost the provider this hour's allowance: no more model requests for it (models/unpaid.ts).
    if (capability.model) await services.unpaidInference.refuseIfSpent(caller.accountId)
    const call = await admit(ctx, mode) // 3, 4
    // The account's turn at the decoders and what its model requests cost: unpaid if the call ends without a charge.
    const reader: Reader = { accountId: caller.accountId, unpaid: false, decoderMs: 0 }
    const providerCost = { usd: 0 }
    const disconnected = new AbortController()
    const onClose = () => {
      if (!ctx.res.writableFinished) disconnected.abort()
    }
    ctx.res.once('close', onClose)
    let paid = false
    try {
      paid = await live({ capability, services, ctx, caller, call, signal: disconnected.signal, reader, providerCost })
    } finally {
      ctx.res.off('close', onClose)
      if (!paid) {
        services.sandbox.drawUnpaid(reader)
        await services.unpaidInference.draw(caller.accountId, providerCost.usd)
      }
    }
  }
  return Object.assign(call, { access: 'call' as const })
}

/** A live call as stages 5–9 see it. */
interface LiveCall {
  capability: Capability
  services: Services
  ctx: Context
  caller: Caller
  call: CallRequest
  /** Aborted when the client disconnects. */
  signal: AbortSignal
  reader: Reader
  providerCost: { usd: number }
}

/** What the hold (or the accepted job) records about the call. */
interface Charge {
  accountId: string
  keyId: string
  price: number
  size: Quote['size']
  endpoint: string
  requestId: string
  now: Date
}

/** Stages 5–9 of a live call; true when it was charged (or accepted with its credits held). */
async function live(run: LiveCall): Promise<boolean> {
  const { capability, services, ctx, caller, call, signal, reader } = run
  if (call.async) requireProvider(capability, services.provider) // before any work on a call that cannot run
  if (capability.size && call.idempotency) {
    const prior = await priorAnswer(services.db, caller.accountId, call.idempotency, services.now())
    if (prior) {
      answerClaimed(ctx, prior) // a replay is not priced again
      return false
    }
  }
  // The price of this input (issue 27); a sync call's handler reuses the documents it measured.
  let quoted: Quote
  try {
    quoted = await quoteCall(capability, call.input, services, { waitForDecoder: false, signal, reader })
  } catch (e) {
    if (signal.aborted) return false // the client left while its document was read: nobody to answer, nothing held
    throw e
  }
  // C20: a call that reads the cache claims its key with its hold (a hit holds the hit price).
  const cache = enterCache(ctx, services, capability, caller, { ...call, ...quoted, signal, providerCost: run.providerCost })
  const charge: Charge = {
    accountId: caller.accountId,
    keyId: caller.keyId,
    price: quoted.credits,
    size: quoted.size,
    endpoint: capability.name,
    requestId: ctx.state.requestId as string,
    now: services.now(),
  }
  return call.async ? acceptAsync(run, charge, quoted) : runSync(run, charge, quoted, cache)
}

/** Stages 5–7 of an async call: the job accepted with its credits held, or the answer without a hold. */
async function acceptAsync({ services, ctx, caller, call }: LiveCall, charge: Charge, quoted: Quote): Promise<boolean> {
  const warnings = await callbackWarnings(services.db, services.secrets, caller, call.callbackUrl)
  // One statement (accept_job), so it may wait its account's turn like a sync call's hold and capture.
  // The job reads its fileUrl documents again and must find the bytes priced here (documents/same-document.ts).
  const input = quoted.digests ? { ...call.input, [DOCUMENT_DIGESTS]: quoted.digests } : call.input
  const accept = () =>
    inAccountTurn(caller.accountId, () =>
      acceptJob(services, { ...charge, idempotency: call.idempotency, input, callbackUrl: call.callbackUrl, warnings }),
    )
  const leases = creditLeases(services.db, services.config, () => services.now(), SYNC_HOLD_TTL_SECONDS)
  const accepted = await (leases ? leases.unlessRecalled(caller.accountId, accept) : accept()) // 5, 6, 7
  if (accepted.outcome !== 'accepted') {
    answerNotHeld(ctx, accepted, quoted.credits)
    return false
  }
  answerAccepted(ctx, accepted.body)
  return true
}

/** Stages 5–9 of a sync call: hold, run the handler (or take the cached result), capture (or release) and answer. */
async function runSync(run: LiveCall, charge: Charge, quoted: Quote, cache: CacheTurn): Promise<boolean> {
  const { capability, services, ctx, caller, call } = run
  const idempotency = call.idempotency
  // A call that failed while the database was out is released before its key is claimed again (issue 25).
  const pending = unsettled(services.db, services.log)
  const lost = (e: unknown) => {
    if (isUnavailable(e))
      pending.add({ accountId: caller.accountId, requestId: charge.requestId, idempotencyKey: idempotency?.key ?? null })
    return e
  }
  if (idempotency) await pending.settleKey(caller.accountId, idempotency.key)
  // The hold need not wait for the disk: a crash loses it whole, and the durable capture flushes it anyway.
  const inTurn = <T>(statement: () => Promise<T>) => inAccountTurn(caller.accountId, statement)
  const reserveArgs = { ...charge, holdTtlSeconds: SYNC_HOLD_TTL_SECONDS, idempotency }
  const leases = creditLeases(services.db, services.config, () => services.now(), SYNC_HOLD_TTL_SECONDS)
  const holding: Holding = leases
    ? { hold: (a, leasable) => leases.hold(a, leasable), unlessRecalled: (accountId, attempt) => leases.unlessRecalled(accountId, attempt) }
    : { hold: (a) => inTurn(() => reserve(services.db.asyncCommit, a)), unlessRecalled: (_accountId, attempt) => attempt() }
  const claimed = await cache.hold(reserveArgs, holding).catch((e: unknown) => {
    throw lost(e) // its answer may be lost after the commit
  }) // 5, 6
  if (!claimed) return false // the client left while an identical call ran
  const { outcome: held, price, hit } = claimed
  if (held.outcome !== 'ok') {
    answerNotHeld(ctx, held, price)
    return false
  }
  // A leased slice locks no account row: its charge or release takes the account's turn itself when it needs one.
  const heldTurn = <T>(statement: () => Promise<T>) => (held.lease ? statement() : inTurn(statement))

  let body: string
  try {
    requireProvider(capability, services.provider)
    const documents: ResolvedDocument[] = []
    const context = capabilityContext(services, capability, {
      requestId: charge.requestId,
      accountId: caller.accountId,
      signal: run.signal,
      timeoutMs: services.config.syncModelTimeoutMs,
      documents: quoted.documents,
      credits: quoted.credits,
      reader: run.reader,
      providerCost: run.providerCost,
      resolved: documents,
    })
    const result = hit ?? (await capability.handler(call.input, context)) // 7
    const checked = checkResult(capability, result, services.log)
    const finished = {
      capability,
      accountId: caller.accountId,
      livemode: caller.mode === 'live',
      requestId: charge.requestId,
      input: call.input,
      documents,
      review: caller.review,
    }
    // A hit answers what the first call answered, its review mark included; a fresh result may be sent to review.
    const published = hit || !services.finishResult ? checked : await services.finishResult({ ...finished, result: checked })
    body = (await heldTurn(() => cache.capture(services.db, held, published, services.now()))).body // 8
    ctx.state.credits = price
  } catch (e) {
    await heldTurn(() => cache.release(services.db, held)).catch((e1: unknown) => {
      throw lost(e1)
    })
    if (e instanceof ClientGone) return false // nobody to answer; the call was free
    if (e instanceof ChargeRefused) answerNotHeld(ctx, e.outcome, price)
    throw e
  }
  ctx.status = 200 // 9
  ctx.type = 'application/json'
  ctx.body = body
  return true
}

/** Stages 5 and 6 without a fresh hold: the key's recorded answer or 409, or the spend refusal. */
function answerNotHeld(ctx: Context, r: Exclude<ReserveOutcome, { outcome: 'ok' }>, price: number): void {
  if (r.outcome === 'spend_cap') throw spendRefusal(price, { refusal: 'spend_cap' })
  if (r.outcome === 'insufficient') throw spendRefusal(price, { refusal: 'insufficient', available: r.available })
  answerClaimed(ctx, r)
}
