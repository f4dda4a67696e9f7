// POST /v1/batches (C19): every item validated and priced as its single call would be, then one statement's
// spend check for the whole quote and the items written as jobs in the same transaction; a dry run quotes it.
// A test key's batch answers every item with the endpoint's example at once, free.
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../http/caller.ts'
import { DOCUMENT_DIGESTS } from '../documents/same-document.ts'
import { ApiError, type ErrorDetail } from '../errors.ts'
import { answerClaimed, claim, idempotencyKey, type ClaimOutcome } from '../idempotency/idempotency.ts'
import { checkPaused } from '../pipeline/paused.ts'
import { requireCapability } from '../http/permissions.ts'
import { quoteCall, type Quote } from '../pipeline/price.ts'
import { requireProvider } from '../pipeline/provider.ts'
import { jsonBodyReader } from '../http/body.ts'
import { dryRunMode } from '../pipeline/request.ts'
import { checkCallbackUrl } from '../webhooks/webhooks.ts'
import { spendRefusal } from '../pipeline/spend.ts'
import type { Capability } from '../run/registry.ts'
import type { Services } from '../services.ts'
import { withUsage } from '../pipeline/test-mode.ts'
import { testAnswer } from '../wallet/test-answer.ts'
import { requestedOutcome } from '../pipeline/test-outcomes.ts'
import { inputReader } from '../validation.ts'
import { holdBatch } from '../wallet/jobs.ts'
import { quote as quoteSpend } from '../wallet/wallet.ts'
import { batchesCompleted } from './completed.ts'
import { feedBatches } from './feed.ts'
import { ACCEPT_SLICE_MS, BATCH_DEADLINE_HOURS, BATCH_REQUESTS_PER_MINUTE, QUOTE_CONCURRENCY } from './limits.ts'
import { BatchAccepted, batchIdOf, BatchQuote, BatchRequest } from './view.ts'

const readBatch = inputReader(BatchRequest, 'body')

interface PricedItem {
  customId: string
  input: Record<string, unknown>
  quote: Quote
  /** what this item holds and, if it succeeds, is charged */
  credits: number
}

export function acceptBatchRoute(services: Services) {
  const readBody = jsonBodyReader(services.config.bodyLimitBytes)
  const perMinute = services.config.rateLimits.batches ?? BATCH_REQUESTS_PER_MINUTE
  return async (ctx: Context, caller: Caller): Promise<void> => {
    // Before the body is read: a refused request costs no validation (a dry run of 10,000 items is free).
    const limit = await services.limiter.consume('batches', caller.accountId, perMinute)
    if (!limit.allowed)
      throw new ApiError(
        'rate_limited',
        `Rate limit of ${limit.limit} batch requests per minute reached for this account (dry runs included); retry in ${limit.resetSeconds} s.`,
        undefined,
        { 'Retry-After': String(limit.resetSeconds) },
      )
    const body = await readBody(ctx, readBatch)
    const key = idempotencyKey(ctx)
    const mode = dryRunMode(ctx)
    if (mode === 'invalid')
      throw new ApiError('invalid_request', 'Service-Dry-Run must be "1" or "true" (a dry run), or "0" or "false" (none).', [
        { path: 'header:Service-Dry-Run', message: 'must be 1, true, 0 or false' },
      ])
    const cap = services.capabilities.get(body.endpoint.replace(/^\/v1\//, ''))
    if (!cap)
      throw new ApiError('invalid_request', `No endpoint ${body.endpoint}.`, [
        { path: '/endpoint', message: 'not an endpoint of this API' },
      ])
    requireCapability(caller, cap.name)
    checkPaused(services.config, cap)
    const live = caller.mode === 'live'
    if (live) requestedOutcome(ctx, 'live') // refuses Service-Test-Outcome, as a call does
    if (live && cap.model) {
      requireProvider(cap, services.provider) // before any document is read: nothing could run
      await services.unpaidInference.refuseIfSpent(caller.accountId)
    }
    const window = body.window ?? 'now'
    const items = await priceItems(services, cap, caller, body, live && mode !== 'dry', window)
    const total = items.reduce((n, i) => n + i.credits, 0)
    if (mode === 'dry') return answerQuote(ctx, services, caller, cap, items, total, live)

    const callbackUrl = body.callbackUrl ?? null
    if (callbackUrl) await checkCallbackUrl(callbackUrl, services)
    const requestId = ctx.state.requestId as string
    const idempotency = key === undefined ? undefined : claim(key, ctx.method, ctx.path, body)
    const id = randomUUID()
    const accepted: Static<typeof BatchAccepted> = {
      batchId: batchIdOf(id),
      status: 'queued',
      counts: { total: items.length, queued: items.length, running: 0, succeeded: 0, failed: 0, cancelled: 0, expired: 0 },
      credits: { held: live ? total : 0 },
      requestId,
      livemode: live,
    }
    const answer = JSON.stringify(accepted)
    const now = services.now()
    const batch = { id, caller, cap, window, items, total, callbackUrl, requestId, idempotencyKey: key ?? null, now }
    const outcome = await services.db.tx(async (q) => {
      if (!live) {
        // Apart from the live keys' records, as a test key's calls are.
        const recorded = await testAnswer(
          q,
          caller.accountId,
          idempotency && { ...idempotency, key: `test ${idempotency.key}` },
          202,
          answer,
          null,
          now,
        )
        if (recorded.outcome !== 'ok') return recorded
        await writeBatch(q, batch, null)
        await batchesCompleted(q, now, [id]) // a test batch has ended already
        return { outcome: 'ok' as const }
      }
      const held = await holdBatch(q, {
        accountId: caller.accountId,
        keyId: caller.keyId,
        endpoint: cap.name,
        requestId,
        idempotency,
        now,
        items: items.map((i) => ({ credits: i.credits, size: i.quote.size })),
        accepted: answer,
      })
      if (held.outcome !== 'ok') return held
      await writeBatch(q, batch, held.holdIds)
      return { outcome: 'ok' as const }
    })
    if (outcome.outcome === 'spend_cap') throw spendRefusal(total, { refusal: 'spend_cap' })
    if (outcome.outcome === 'insufficient') throw spendRefusal(total, { refusal: 'insufficient', available: outcome.available })
    if (outcome.outcome !== 'ok') return answerBatchClaimed(ctx, outcome)
    if (live) void feedBatches(services) // the workers' timers feed it too, should this process stop now
    answerBatch(ctx, answer)
  }
}

/** Each item checked as its call would be (schema, the endpoint's rules, its documents and price); all refusals in one 400. */
async function priceItems(
  services: Services,
  cap: Capability,
  caller: Caller,
  body: BatchRequest,
  paid: boolean,
  window: 'now' | '24h',
): Promise<PricedItem[]> {
  const problems: ErrorDetail[] = []
  const seen = new Map<string, number>()
  const inputs: Array<Record<string, unknown> | null> = []
  const slice = slicer()
  for (const [i, item] of body.items.entries()) {
    await slice()
    const at = `/items/${i}`
    const first = seen.get(item.customId)
    if (first !== undefined) problems.push({ path: `${at}/customId`, message: `the same customId as /items/${first}` })
    else seen.set(item.customId, i)
    const input = item.body as Record<string, unknown>
    const extra = ['async', 'callbackUrl'].filter((k) => k in input)
    if (extra.length) {
      problems.push(...extra.map((k) => ({ path: `${at}/body/${k}`, message: 'not in a batch item (the batch runs every item as a job)' })))
      inputs.push(null)
      continue
    }
    if (!cap.validateRequest(input)) {
      problems.push(...formatAt(at, cap.validateRequest.errors))
      inputs.push(null)
      continue
    }
    const ruled = (await cap.check?.(input)) ?? []
    problems.push(...ruled.map((p) => ({ path: `${at}/body${p.path}`, message: p.message })))
    inputs.push(ruled.length ? null : input)
  }
  // The price of each valid item, documents read as its call would read them, a few at a time.
  const quotes: Array<Quote | null> = inputs.map(() => null)
  const reader = { accountId: caller.accountId, unpaid: !paid, decoderMs: 0 }
  let next = 0
  const quoteNext = async (): Promise<void> => {
    for (let i = next++; i < inputs.length; i = next++) {
      await slice()
      const input = inputs[i]
      if (!input) continue
      try {
        quotes[i] = await quoteCall(cap, input, services, { waitForDecoder: true, reader })
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500 || e.status === 429) throw e
        problems.push(
          ...(e.details?.length ? e.details : [{ path: '', message: e.message }]).map((d) => ({
            path: `/items/${i}/body${d.path}`,
            message: d.message,
          })),
        )
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(QUOTE_CONCURRENCY, inputs.length) }, quoteNext))
  if (problems.length) {
    problems.sort((a, b) => itemOf(a.path) - itemOf(b.path))
    throw new ApiError(
      'invalid_request',
      `${new Set(problems.map((p) => itemOf(p.path))).size} of ${body.items.length} items are not valid; nothing was held.`,
      problems,
    )
  }
  return body.items.map((item, i) => {
    const quote = quotes[i]!
    const input = inputs[i]!
    return {
      customId: item.customId,
      input: quote.digests ? { ...input, [DOCUMENT_DIGESTS]: quote.digests } : input,
      quote,
      credits: window === '24h' ? discounted(quote.credits, services.config.batches.discountPercent) : quote.credits,
    }
  })
}

/** Window `24h`: each item's price less the discount, rounded up to whole credits (never below 1). */
const discounted = (credits: number, discountPercent: number): number => Math.max(1, Math.ceil((credits * (100 - discountPercent)) / 100))

/**
 * Yields to the event loop once ACCEPT_SLICE_MS have passed since the last yield: checking 10,000 items takes up
 * to seconds on a loaded host, which would otherwise stop every other request of the process (health checks
 * included) as long.
 */
function slicer(): () => Promise<void> {
  let since = performance.now()
  // One pause for all the item loops that share the slicer: each would otherwise run its own slice after it.
  let pause: Promise<void> | null = null
  return () => {
    if (pause) return pause
    if (performance.now() - since < ACCEPT_SLICE_MS) return Promise.resolve()
    pause = new Promise((resolve) =>
      setImmediate(() => {
        pause = null
        since = performance.now()
        resolve()
      }),
    )
    return pause
  }
}

const itemOf = (path: string) => Number(/^\/items\/(\d+)/.exec(path)?.[1] ?? -1)

function formatAt(at: string, errors: Capability['validateRequest']['errors']): ErrorDetail[] {
  return (errors ?? []).map((e) => ({
    path: `${at}/body${e.instancePath}${e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : ''}`,
    message: e.message ?? 'is not valid',
  }))
}

interface NewBatch {
  id: string
  caller: Caller
  cap: Capability
  window: 'now' | '24h'
  items: PricedItem[]
  total: number
  callbackUrl: string | null
  requestId: string
  idempotencyKey: string | null
  now: Date
}

/** The batch row and its items as jobs; a test key's items end at once with the example, free. */
async function writeBatch(q: import('../db/database.ts').Query, b: NewBatch, holdIds: string[] | null): Promise<void> {
  const live = holdIds !== null
  const expires = new Date(b.now.getTime() + BATCH_DEADLINE_HOURS * 3600_000)
  await q.sql(
    `insert into batches (id, account_id, key_id, mode, endpoint, batch_window, status, total, succeeded, quoted, callback_url, request_id,
                          idempotency_key, created_at, expires_at, completed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      b.id,
      b.caller.accountId,
      b.caller.keyId,
      b.caller.mode,
      b.cap.name,
      b.window,
      live ? 'queued' : 'completed',
      b.items.length,
      live ? 0 : b.items.length,
      live ? b.total : 0,
      b.callbackUrl,
      b.requestId,
      b.idempotencyKey,
      b.now,
      expires,
      live ? null : b.now,
    ],
  )
  const example = JSON.stringify(b.cap.example.response)
  await q.sql(
    `insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, mode, created_at, updated_at, started_at, finished_at,
                       batch_id, batch_index, custom_id, dispatched, result)
     select gen_random_uuid(), ?, ?, ?, ?, ?, i.hold_id, ?, ?, ?, ?, ?, ?, i.ord - 1, i.custom_id, false, i.result
       from unnest(?::uuid[], ?::text[], ?::text[]) with ordinality as i (hold_id, custom_id, result, ord)`,
    [
      b.caller.accountId,
      b.caller.keyId,
      b.cap.name,
      live ? 'queued' : 'succeeded',
      b.requestId,
      b.caller.mode,
      b.now,
      b.now,
      live ? null : b.now,
      live ? null : b.now,
      b.id,
      holdIds ?? b.items.map(() => null),
      b.items.map((i) => i.customId),
      b.items.map((i) => (live ? null : withUsage(example, i.quote))),
    ],
  )
  if (live)
    await q.sql(
      `insert into job_inputs (job_id, input)
       select j.id, i.input from unnest(?::jsonb[]) with ordinality as i (input, ord) join jobs j on j.batch_id = ? and j.batch_index = i.ord - 1`,
      [b.items.map((i) => JSON.stringify(i.input)), b.id],
    )
}

function answerBatch(ctx: Context, body: string): void {
  const { batchId } = JSON.parse(body) as { batchId: string }
  ctx.status = 202
  ctx.type = 'application/json'
  ctx.set('Location', `/v1/batches/${batchId}`)
  ctx.body = body
}

/** The Idempotency-Key's recorded 202, or its 409. */
function answerBatchClaimed(ctx: Context, claimed: ClaimOutcome): void {
  if (claimed.outcome !== 'replay' || claimed.status !== 202) return answerClaimed(ctx, claimed)
  ctx.set('Idempotent-Replayed', 'true')
  ctx.state.replayed = true
  answerBatch(ctx, claimed.body)
}

/** Service-Dry-Run: what the batch would hold and charge at most, and whether the account can take it now. */
async function answerQuote(
  ctx: Context,
  services: Services,
  caller: Caller,
  cap: Capability,
  items: PricedItem[],
  total: number,
  live: boolean,
): Promise<void> {
  const spend = await quoteSpend(services.db, caller.accountId, caller.keyId, live ? total : 0, services.now())
  const refusal = live && spend.refusal ? spendRefusal(total, { refusal: spend.refusal, available: spend.available }) : null
  const report: Static<typeof BatchQuote> = {
    dryRun: true,
    endpoint: `/v1/${cap.name}`,
    liveStatus: refusal ? refusal.status : 202,
    items: items.length,
    wouldCharge: refusal || !live ? 0 : total,
    price: total,
    balance: spend.available,
    ...(refusal ? { error: { code: refusal.code, message: refusal.message } } : {}),
  }
  ctx.status = 200
  ctx.body = report
}
