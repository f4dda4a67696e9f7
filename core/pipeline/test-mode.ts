// A test key's call: live minus the model and the money. The live stages 1–4 run for real (auth, rate limit,
// pause, validation, the Idempotency-Key's format), then the live price of this input (pipeline/price.ts: its
// documents read in the decoder pool as live, refused with the same 422s, priced by size), then the capability's
// example instead of stages 5–8: no hold, no model, no charge. The answer is the example as the live call would
// send it (usage with 0 credits, the size it was measured at, livemode false); an Idempotency-Key replays it as
// live; an async call is accepted, its job ends at once and its webhook is delivered as live, signed with the
// account's test secret and without the live balance (an event that leaves the service carries no live figure).
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { answerClaimed, priorAnswer } from '../idempotency/idempotency.ts'
import { answerAccepted } from '../idempotency/answer.ts'
import { jobError } from '../jobs/run-task.ts'
import type { JobAccepted } from '../jobs/view.ts'
import { answerDryRun, type DryRunMoney } from './dry-run.ts'
import { quoteCall, type Quote } from './price.ts'
import { dryRunMode, type CallRequest, type DryRunMode } from './request.ts'
import type { Capability } from '../run/registry.ts'
import type { Services } from '../services.ts'
import { testAnswer } from '../wallet/test-answer.ts'
import { balances } from '../wallet/wallet.ts'
import { callbackWarnings } from '../webhooks/webhooks.ts'
import { requestedOutcome, type Figures } from './test-outcomes.ts'

type Admit = (mode: DryRunMode) => Promise<CallRequest>

/** The handler of a test key's calls to `capability`; its answer is serialized once. */
export function testModeCall(capability: Capability, services: Services) {
  const example = JSON.stringify(capability.example.response)
  const available = async (q: Query, accountId: string) => (await balances(q, accountId))?.available ?? 0
  /**
   * The live price of this input: documents read and refused as live (a test call is no cheaper to refuse), its
   * decoder time drawn from the account's unpaid budget (no test call is ever paid).
   */
  const price = (call: CallRequest, accountId: string) =>
    quoteCall(capability, call.input, services, { waitForDecoder: false, reader: { accountId, unpaid: true, decoderMs: 0 } })

  return async (ctx: Context, caller: Caller, admit: Admit): Promise<void> => {
    const outcome = requestedOutcome(ctx, 'test')
    if (outcome?.stage === 'throttle') throw outcome.error(ctx, capability) // 2
    const mode = dryRunMode(ctx)
    if (mode === 'dry') {
      const money: DryRunMoney = { balance: await available(services.db, caller.accountId), charge: 0, price: capability.price }
      return answerDryRun(ctx, capability, money, async () => {
        const call = await admit(mode) // 3, 4
        const quoted = await price(call, caller.accountId)
        Object.assign(money, { price: quoted.credits }, quoted.size ? { size: quoted.size } : {})
        if (outcome && !(outcome.stage === 'run' && call.async)) throw outcome.error(ctx, capability, figures(quoted, money.balance))
        return call.async ? 202 : 200
      })
    }
    const call = await admit(mode) // 3, 4
    // Apart from the live calls' keys: a live key's record is never replayed to a test key, nor the other way
    // round (a space cannot occur in an Idempotency-Key).
    const idempotency = call.idempotency && { ...call.idempotency, key: `test ${call.idempotency.key}` }
    if (capability.size && idempotency) {
      const prior = await priorAnswer(services.db, caller.accountId, idempotency, services.now())
      if (prior) return answerClaimed(ctx, prior) // a replay is not priced again, as live
    }
    const quoted = await price(call, caller.accountId)
    const known = () => available(services.db, caller.accountId).then((balance) => figures(quoted, balance))
    if (outcome?.stage === 'admission') throw outcome.error(ctx, capability, await known()) // 5, 6
    const requestId = ctx.state.requestId as string

    if (call.async) {
      const failure = outcome && jobError(outcome.error(ctx, capability, await known()))
      const warnings = await callbackWarnings(services.db, services.secrets, caller, call.callbackUrl)
      const accepted = await services.db.tx(async (q) => {
        const jobId = randomUUID()
        const body: Static<typeof JobAccepted> = {
          jobId,
          status: 'queued',
          requestId,
          livemode: false,
          credits: { held: 0 },
          ...(warnings.length ? { warnings } : {}),
        }
        const answer = await testAnswer(q, caller.accountId, idempotency, 202, JSON.stringify(body), null, services.now())
        if (answer.outcome !== 'ok') return answer
        const now = services.now()
        const result = failure ? null : withUsage(example, quoted)
        await q.sql(
          `insert into jobs (id, account_id, key_id, endpoint, status, request_id, idempotency_key, callback_url, result, error, mode,
                             created_at, updated_at, started_at, finished_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, 'test', ?, ?, ?, ?)`,
          [
            jobId,
            caller.accountId,
            caller.keyId,
            capability.name,
            failure ? 'failed' : 'succeeded',
            requestId,
            call.idempotency?.key ?? null,
            call.callbackUrl,
            result,
            failure ? JSON.stringify(failure) : null,
            now,
            now,
            now,
            now,
          ],
        )
        const events = [{ event: failure ? ('job.failed' as const) : ('job.completed' as const), jobId }]
        for (const listener of services.jobEvents ?? []) await listener(events, q)
        return answer
      })
      if (accepted.outcome !== 'ok') return answerClaimed(ctx, accepted)
      return answerAccepted(ctx, accepted.body)
    }

    if (outcome) throw outcome.error(ctx, capability, await known()) // 7
    const answer = await testAnswer(services.db, caller.accountId, idempotency, 200, example, quoted.size ?? null, services.now())
    if (answer.outcome !== 'ok') return answerClaimed(ctx, answer)
    ctx.status = 200
    ctx.type = 'application/json'
    ctx.body = answer.body
  }
}

const figures = (quoted: Quote, available: number): Figures => ({ price: quoted.credits, available })

/**
 * A test job's result as a live job's: the example with usage, 0 credits charged, the size it was measured at, and
 * no balance: the job's webhook carries it to a receiver, which is told nothing of the live wallet.
 */
function withUsage(example: string, quoted: Quote): string {
  const usage = { credits: 0, ...(quoted.size ? { size: quoted.size } : {}), livemode: false }
  return JSON.stringify({ ...(JSON.parse(example) as object), usage })
}
