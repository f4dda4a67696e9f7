// The graphile-worker task of an async call: queued → running under a lease, then completeJob or failJob.
import type { JobHelpers } from 'graphile-worker'
import { withoutDigests } from '../documents/same-document.ts'
import type { ResolvedDocument } from '../documents/schema.ts'
import { ApiError } from '../errors.ts'
import { capabilityContext } from '../run/context.ts'
import { checkResult } from '../run/result.ts'
import type { Services } from '../services.ts'
import { batched } from './batch.ts'
import { completeJob, failJob } from './end.ts'
import type { JobError } from './view.ts'

export const RUN_TASK = 'run_capability'

interface Claimed {
  id: string
  endpoint: string
  account_id: string
  request_id: string
  input: Record<string, unknown>
  /** what the acceptance held: the job's price (issue 27) */
  credits: string
  mode: 'live' | 'test'
}

export function runCapabilityTask(services: Services) {
  const { db, config } = services
  const leaseMs = config.jobLeaseSeconds * 1000
  const leaseUntil = () => new Date(services.now().getTime() + leaseMs)
  // Jobs handed out together (graphile-worker's local queue) are claimed with one statement; a job is claimed
  // only while queued, so it runs at most once however many workers got its graphile-worker job. Locked in id
  // order, as every statement locking several jobs does (docs/locking.md).
  const claim = batched(async (jobIds: string[]) => {
    const now = services.now()
    const rows = await db.sql<Claimed>(
      `with queued as (select id from jobs where id = any(?::uuid[]) and status = 'queued' order by id for update)
       update jobs set status = 'running', started_at = ?, updated_at = ?, lease_until = ? from queued where jobs.id = queued.id
       returning jobs.id, endpoint, account_id, request_id, mode, (select input from job_inputs where job_id = jobs.id) as input,
         (select amount from holds where id = jobs.hold_id) as credits`,
      [jobIds, now, now, leaseUntil()],
    )
    const claimed = new Map(rows.map((r) => [r.id, r]))
    return jobIds.map((id) => {
      const row = claimed.get(id)
      claimed.delete(id) // the same id twice in a group still runs once
      return row
    })
  })
  return async (payload: unknown, helpers: JobHelpers): Promise<void> => {
    const jobId = (payload as { jobId: string }).jobId
    const job = await claim(jobId)
    if (!job) return // already ended by maintenance (deadline) or another claim
    const heartbeat = setInterval(
      () => {
        db.sql(`update jobs set lease_until = ? where id = ? and status = 'running'`, [leaseUntil(), jobId]).catch((e: Error) =>
          services.log(`[jobs] heartbeat ${jobId}: ${e.message}`),
        )
      },
      Math.max(500, leaseMs / 3),
    )
    let progressWrites = Promise.resolve()
    const providerCost = { usd: 0 }
    try {
      const cap = services.capabilities.get(job.endpoint)
      if (!cap) throw new ApiError('internal_error', `The capability ${job.endpoint} is no longer served.`)
      if (cap.model) await services.unpaidInference.refuseIfSpent(job.account_id) // failed free, before any model request
      const { input, digests } = withoutDigests(cap.request, job.input)
      const documents: ResolvedDocument[] = []
      const context = capabilityContext(services, cap, {
        resolved: documents,
        requestId: job.request_id,
        accountId: job.account_id,
        signal: helpers.abortSignal ?? new AbortController().signal,
        timeoutMs: config.asyncModelTimeoutMs,
        waitForDecoder: true, // the runner's concurrency bounds the jobs in flight: a job waits for a decoder, never 503
        credits: Number(job.credits), // the price its acceptance quoted and held
        digests, // … for the documents it read then
        providerCost,
        progress: (done, total) => {
          // One write at a time, in order, all ended before the job is: the last count is the one the job keeps.
          progressWrites = progressWrites.then(() =>
            db
              .sql(`update jobs set progress = ?::jsonb, updated_at = ? where id = ? and status = 'running'`, [
                JSON.stringify({ done, total }),
                services.now(),
                jobId,
              ])
              .then(
                () => {},
                (e: Error) => services.log(`[jobs] progress ${jobId}: ${e.message}`),
              ),
          )
        },
      })
      const result = await cap.handler(input, context).finally(() => progressWrites)
      const checked = checkResult(cap, result, services.log)
      const finished = {
        capability: cap,
        accountId: job.account_id,
        livemode: job.mode === 'live',
        requestId: job.request_id,
        jobId,
        input,
        documents,
      }
      await completeJob(services, jobId, services.finishResult ? await services.finishResult({ ...finished, result: checked }) : checked)
    } catch (e) {
      if (!(e instanceof ApiError)) services.log(`[jobs] ${jobId} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
      await failJob(services, jobId, jobError(e), { statuses: ['running'] })
      await services.unpaidInference.draw(job.account_id, providerCost.usd)
    } finally {
      clearInterval(heartbeat)
    }
  }
}

/** What the client is told: a refusal's own code and message, anything unexpected as a free internal error. */
export function jobError(e: unknown): JobError {
  return e instanceof ApiError && e.status !== 500
    ? { code: e.code, message: e.message }
    : { code: 'internal_error', message: 'The job failed on our side; nothing was charged.' }
}
