// A test key's call (issue 30): the live stages 1–4 for real (auth, rate limit, pause, validation, the
// Idempotency-Key's format), then the capability's example instead of stages 5–8: no hold, no model, no charge.
// The answer is the example as the live call would send it (usage with 0 credits); an Idempotency-Key replays it
// as live; an async call is accepted, its job ends at once and its webhook is signed and delivered as live.
import { randomUUID } from 'node:crypto'
import type { Static } from '@sinclair/typebox'
import type { Context } from 'koa'
import type { Caller } from '../accounts/accounts.ts'
import type { Query } from '../db/database.ts'
import { answerClaimed, IDEMPOTENCY_WINDOW_HOURS, type ClaimOutcome, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import { jobError } from '../jobs/run-task.ts'
import type { JobAccepted } from '../jobs/view.ts'
import { answerDryRun } from '../pipeline/dry-run.ts'
import { dryRunMode, type CallRequest, type DryRunMode } from '../pipeline/request.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { balances } from '../wallet/wallet.ts'
import { requestedOutcome } from './outcomes.ts'

type Admit = (mode: DryRunMode) => Promise<CallRequest>

/** The handler of a test key's calls to `capability`; its answer is serialized once. */
export function testModeCall(capability: Capability, services: Services) {
  const example = JSON.stringify(capability.example.response)
  return async (ctx: Context, caller: Caller, admit: Admit): Promise<void> => {
    const outcome = requestedOutcome(ctx, 'test')
    if (outcome?.stage === 'throttle') throw outcome.error(ctx, capability) // 2
    const mode = dryRunMode(ctx)
    if (mode === 'dry') {
      const balance = (await balances(services.db, caller.accountId))?.available ?? 0
      return answerDryRun(ctx, capability, { balance, charge: 0, price: capability.price }, async () => {
        const call = await admit(mode)
        if (outcome && !(outcome.stage === 'run' && call.async)) throw outcome.error(ctx, capability)
        return call.async ? 202 : 200
      })
    }
    const call = await admit(mode) // 3, 4
    if (outcome?.stage === 'admission') throw outcome.error(ctx, capability) // 5, 6
    const requestId = ctx.state.requestId as string
    // Apart from the live calls' keys: a live key's record is never replayed to a test key, nor the other way
    // round (a space cannot occur in an Idempotency-Key).
    const idempotency = call.idempotency && { ...call.idempotency, key: `test ${call.idempotency.key}` }

    if (call.async) {
      const failure = outcome && jobError(outcome.error(ctx, capability))
      const accepted = await services.db.tx(async (q) => {
        const jobId = randomUUID()
        const body: Static<typeof JobAccepted> = { jobId, status: 'queued', requestId }
        const answer = await testAnswer(q, caller.accountId, idempotency, 202, JSON.stringify(body), services.now())
        if (answer.outcome !== 'ok') return answer
        const now = services.now()
        const result = failure ? null : await withUsage(q, caller.accountId, example)
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
      ctx.status = 202
      ctx.type = 'application/json'
      ctx.body = accepted.body
      return
    }

    if (outcome) throw outcome.error(ctx, capability) // 7
    const answer = await testAnswer(services.db, caller.accountId, idempotency, 200, example, services.now())
    if (answer.outcome !== 'ok') return answerClaimed(ctx, answer)
    ctx.status = 200
    ctx.type = 'application/json'
    ctx.body = answer.body
  }
}

type Answer = { outcome: 'ok'; status: number; body: string } | ClaimOutcome

/** test_answer() (migration 0010): the answer recorded under the Idempotency-Key, or the key's replay or refusal. */
async function testAnswer(
  q: Query,
  accountId: string,
  idempotency: IdempotencyClaim | undefined,
  status: 200 | 202,
  result: string,
  now: Date,
): Promise<Answer> {
  const [row] = await q.sql<{ outcome: Answer['outcome']; status: number; body: string }>(
    `select * from test_answer(?, ?, ?, ?::interval, ?, ?, ?)`,
    [accountId, idempotency?.key ?? null, idempotency?.fingerprint ?? null, `${IDEMPOTENCY_WINDOW_HOURS} hours`, status, result, now],
  )
  if (!row) throw new Error('test_answer returned nothing')
  if (row.outcome === 'ok' || row.outcome === 'replay') return { outcome: row.outcome, status: row.status, body: row.body }
  return { outcome: row.outcome }
}

/** A test job's result as a live job's: the example with usage, 0 credits charged. */
async function withUsage(q: Query, accountId: string, example: string): Promise<string> {
  const available = (await balances(q, accountId))?.available ?? 0
  return JSON.stringify({ ...(JSON.parse(example) as object), usage: { credits: 0, balanceRemaining: available } })
}
