// Async jobs (C7). Acceptance commits the job row, its input, the hold and the graphile-worker job in one
// transaction. A worker runs each job at most once; maintenance fails what a dead worker left behind.
import { randomUUID } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import type { JobHelpers } from 'graphile-worker'
import type { Query } from '../db/database.ts'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../errors.ts'
import { recordAccepted } from '../idempotency/idempotency.ts'
import { capabilityContext } from '../run/context.ts'
import type { Services, JobEventName } from '../services.ts'
import { capture, release, reserve, Usage, type ReserveArgs, type ReserveOutcome } from '../wallet/wallet.ts'
import { checkResult } from '../run/result.ts'
import { UUID } from '../validation.ts'

export const RUN_TASK = 'run_capability'
const DEADLINE_HOURS = 24
const RETENTION_DAYS = 30

export type AcceptOutcome = { outcome: 'accepted'; body: string } | Exclude<ReserveOutcome, { outcome: 'ok' }>

const Uuid = Type.String({ format: 'uuid' })

/** The 202 answer of an async call; published as components.schemas.JobAccepted. */
export const JobAccepted = Type.Object(
  { jobId: Uuid, status: Type.Literal('queued'), requestId: Type.String() },
  { additionalProperties: false },
)

const Time = Type.String({ format: 'date-time' })
/** A job can also fail for reasons no request has: maintenance ends it (C7). */
const JOB_ONLY_CODES = ['worker_lost', 'deadline_exceeded'] as const
export type JobErrorCode = ErrorCode | (typeof JOB_ONLY_CODES)[number]

/**
 * GET /v1/jobs/{id} and the webhook's `job`; published as components.schemas.Job. A failed job carries the
 * message in `error` and the stable C2 code in `errorCode` (issue 14 supersedes C7's `{code, message}` object).
 */
export const JobView = Type.Object(
  {
    jobId: Uuid,
    endpoint: Type.String({ description: 'e.g. /v1/parse' }),
    status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    createdAt: Time,
    updatedAt: Time,
    startedAt: Type.Optional(Time),
    finishedAt: Type.Optional(Time),
    requestId: Type.String(),
    result: Type.Optional(
      Type.Object(
        { usage: Usage },
        { additionalProperties: true, description: 'when succeeded: the body the synchronous call returns, usage included' },
      ),
    ),
    error: Type.Optional(Type.String({ description: 'when failed: what went wrong, for people' })),
    errorCode: Type.Optional(
      Type.Unsafe<JobErrorCode>({
        type: 'string',
        enum: [...Object.keys(ERROR_STATUS), ...JOB_ONLY_CODES],
        description: 'when failed: the stable code (C2, or worker_lost / deadline_exceeded)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type JobView = Static<typeof JobView>

export async function acceptJob(
  services: Services,
  a: Omit<ReserveArgs, 'holdTtlSeconds'> & { input: Record<string, unknown>; callbackUrl: string | null },
): Promise<AcceptOutcome> {
  const jobId = randomUUID()
  const accepted: Static<typeof JobAccepted> = { jobId, status: 'queued', requestId: a.requestId }
  const body = JSON.stringify(accepted)
  return services.db.tx(async (q) => {
    const held = await reserve(q, { ...a, holdTtlSeconds: null })
    if (held.outcome !== 'ok') return held
    await q.sql(
      `insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
       values (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
      [jobId, a.accountId, a.keyId, a.endpoint, a.requestId, held.holdId, a.idempotency?.key ?? null, a.callbackUrl, a.now, a.now],
    )
    await q.sql(`insert into job_inputs (job_id, input) values (?, ?::jsonb)`, [jobId, JSON.stringify(a.input)])
    // max_attempts 1: a model call is never blindly repeated (C7).
    await q.sql(`select graphile_worker.add_job(?, json_build_object('jobId', ?::text), max_attempts => 1)`, [RUN_TASK, jobId])
    if (a.idempotency) await recordAccepted(q, a.accountId, a.idempotency.key, body)
    return { outcome: 'accepted' as const, body }
  })
}

/** The graphile-worker task: queued → running under a lease, then succeeded (captured) or failed (released). */
export function runCapabilityTask(services: Services) {
  return async (payload: unknown, helpers: JobHelpers): Promise<void> => {
    const jobId = (payload as { jobId: string }).jobId
    const { db, config } = services
    const leaseMs = config.jobLeaseSeconds * 1000
    const [job] = await db.sql(
      `update jobs set status = 'running', started_at = ?, updated_at = ?, lease_until = ? where id = ? and status = 'queued'
       returning endpoint, account_id, request_id, (select input from job_inputs where job_id = jobs.id) as input`,
      [services.now(), services.now(), new Date(services.now().getTime() + leaseMs), jobId],
    )
    if (!job) return // already ended by maintenance (deadline) or another claim
    const heartbeat = setInterval(
      () => {
        db.sql(`update jobs set lease_until = ? where id = ? and status = 'running'`, [
          new Date(services.now().getTime() + leaseMs),
          jobId,
        ]).catch((e) => services.log(`[jobs] heartbeat ${jobId}: ${(e as Error).message}`))
      },
      Math.max(500, leaseMs / 3),
    )
    try {
      const cap = services.capabilities.get(job.endpoint)
      if (!cap) throw new ApiError('internal_error', `The capability ${job.endpoint} is no longer served.`)
      const context = capabilityContext(services, cap, {
        requestId: job.request_id,
        accountId: job.account_id,
        signal: helpers.abortSignal ?? new AbortController().signal,
        timeoutMs: config.asyncModelTimeoutMs,
      })
      const result = await cap.handler(job.input, context)
      await finish(services, jobId, { result: checkResult(cap, result, services.log) })
    } catch (e) {
      const error =
        e instanceof ApiError && e.status !== 500
          ? { code: e.code, message: e.message }
          : { code: 'internal_error', message: 'The job failed on our side; nothing was charged.' }
      if (!(e instanceof ApiError)) services.log(`[jobs] ${jobId} failed: ${(e as Error).stack ?? e}`)
      await finish(services, jobId, { error })
    } finally {
      clearInterval(heartbeat)
    }
  }
}

/** Ends a running job: capture on success, release on failure, input deleted, event emitted; one transaction. */
async function finish(services: Services, jobId: string, outcome: { result: object } | { error: { code: string; message: string } }) {
  await services.db.tx(async (q) => {
    const now = services.now()
    const [job] = await q.sql(`select hold_id from jobs where id = ? and status = 'running' for update`, [jobId])
    if (!job) return // maintenance already failed it (lease lost): its hold is released, nothing to charge
    if ('result' in outcome) {
      const { body } = await capture(q, job.hold_id, outcome.result, null, now)
      await q.sql(`update jobs set status = 'succeeded', result = ?, finished_at = ?, updated_at = ?, lease_until = null where id = ?`, [
        body,
        now,
        now,
        jobId,
      ])
    } else {
      await release(q, job.hold_id, null)
      await q.sql(`update jobs set status = 'failed', error = ?::jsonb, finished_at = ?, updated_at = ?, lease_until = null where id = ?`, [
        JSON.stringify(outcome.error),
        now,
        now,
        jobId,
      ])
    }
    await q.sql(`delete from job_inputs where job_id = ?`, [jobId])
    await emit(services, 'result' in outcome ? 'job.completed' : 'job.failed', jobId, q)
  })
}

async function emit(services: Services, event: JobEventName, jobId: string, q: Query) {
  for (const listener of services.jobEvents ?? []) await listener(event, jobId, q)
}

export interface MaintenanceReport {
  workerLost: number
  deadlineExceeded: number
  inputsDeleted: number
  jobsRemoved: number
  holdsReleased: number
  idempotencyRecordsRemoved: number
  plansRenewed: number
  signInRowsRemoved: number
}

/** C7 maintenance pass: every 5 minutes by cron, and on POST /internal/maintenance. */
export async function failStaleJobs(
  services: Services,
  now: Date,
): Promise<Pick<MaintenanceReport, 'workerLost' | 'deadlineExceeded' | 'inputsDeleted' | 'jobsRemoved'>> {
  const deadline = new Date(now.getTime() - DEADLINE_HOURS * 3600_000)
  const fail = async (where: string, params: unknown[], error: { code: string; message: string }) => {
    const stale = await services.db.sql(`select id from jobs where ${where}`, params)
    let n = 0
    for (const { id } of stale) {
      const failed = await services.db.tx(async (q) => {
        const [job] = await q.sql(`select hold_id from jobs where id = ? and ${where} for update`, [id, ...params])
        if (!job) return false
        await release(q, job.hold_id, null)
        await q.sql(
          `update jobs set status = 'failed', error = ?::jsonb, finished_at = ?, updated_at = ?, lease_until = null where id = ?`,
          [JSON.stringify(error), now, now, id],
        )
        await q.sql(`delete from job_inputs where job_id = ?`, [id])
        await emit(services, 'job.failed', id, q)
        return true
      })
      if (failed) n++
    }
    return n
  }
  const deadlineExceeded = await fail(`status in ('queued', 'running') and created_at <= ?`, [deadline], {
    code: 'deadline_exceeded',
    message: 'The job did not finish within 24 hours; nothing was charged.',
  })
  const workerLost = await fail(`status = 'running' and lease_until < ?`, [now], {
    code: 'worker_lost',
    message: 'The worker running this job stopped; the uncertain model call is not repeated and nothing was charged.',
  })
  const inputs = await services.db.sql(
    `delete from job_inputs i using jobs j where j.id = i.job_id and (j.status in ('succeeded', 'failed') or j.created_at <= ?) returning i.job_id`,
    [deadline],
  )
  const removed = await services.db.sql(`delete from jobs where status in ('succeeded', 'failed') and finished_at <= ? returning id`, [
    new Date(now.getTime() - RETENTION_DAYS * 86400_000),
  ])
  return { workerLost, deadlineExceeded, inputsDeleted: inputs.length, jobsRemoved: removed.length }
}

export function jobView(row: Record<string, any>): JobView {
  const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : undefined)
  return {
    jobId: row.id,
    endpoint: `/v1/${row.endpoint}`,
    status: row.status,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    ...(row.started_at ? { startedAt: iso(row.started_at) } : {}),
    ...(row.finished_at ? { finishedAt: iso(row.finished_at) } : {}),
    requestId: row.request_id,
    ...(row.result ? { result: JSON.parse(row.result) } : {}),
    ...(row.error ? { error: row.error.message, errorCode: row.error.code } : {}),
  }
}

/** The owner's job; anything else, malformed ids included, is the same 404 (C7). */
export async function getJob(db: Query, accountId: string, id: string): Promise<JobView> {
  const [row] = UUID.test(id) ? await db.sql(`select * from jobs where id = ? and account_id = ?`, [id, accountId]) : []
  if (!row) throw new ApiError('not_found', 'No such job.')
  return jobView(row)
}
