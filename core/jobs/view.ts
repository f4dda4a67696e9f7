// What a client sees of a job: the 202 of an async call, and the job itself (GET /v1/jobs/{id}, webhooks).
import { Type, type Static } from '@sinclair/typebox'
import type { Query, Row } from '../db/database.ts'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../errors.ts'
import { JobUsage } from '../wallet/wallet.ts'
import { UUID } from '../validation.ts'

const Uuid = Type.String({ format: 'uuid' })

/** Published in the 202 (JobAccepted.warnings): the job runs, but its callback cannot be delivered as things stand. */
export const CallbackWarning = Type.Object(
  {
    code: Type.Union([Type.Literal('webhook_secret_missing'), Type.Literal('webhook_secret_unreadable')], {
      description:
        'webhook_secret_missing: no signing secret of this mode on the account, the delivery will be skipped; webhook_secret_unreadable: the secret cannot be opened with the server’s keys, the delivery will fail',
    }),
    message: Type.String(),
  },
  { additionalProperties: false },
)
export type CallbackWarning = Static<typeof CallbackWarning>

/** The 202 answer of an async call; published as components.schemas.JobAccepted. */
export const JobAccepted = Type.Object(
  {
    jobId: Uuid,
    status: Type.Literal('queued'),
    requestId: Type.String(),
    livemode: Type.Boolean(),
    credits: Type.Object(
      {
        held: Type.Integer({
          minimum: 0,
          description: "this input's price, held until the job ends: charged if it succeeds, released if not",
        }),
      },
      { additionalProperties: false },
    ),
    warnings: Type.Optional(
      Type.Array(CallbackWarning, { description: 'what stands in the way of the callback; absent when nothing does (or no callbackUrl)' }),
    ),
  },
  { additionalProperties: false, description: 'The job is at `Location` (GET /v1/jobs/{id})' },
)

const Time = Type.String({ format: 'date-time' })
/** A job can also fail for reasons no request has: maintenance ends it (C7), or its batch is cancelled (C19). */
const JOB_ONLY_CODES = ['worker_lost', 'deadline_exceeded', 'cancelled'] as const
export type JobErrorCode = ErrorCode | (typeof JOB_ONLY_CODES)[number]
/** Stored in jobs.error of a failed job. */
export interface JobError {
  code: JobErrorCode
  message: string
}

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
    livemode: Type.Boolean(),
    progress: Type.Optional(
      Type.Object(
        { done: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 1 }) },
        {
          additionalProperties: false,
          description: 'a long input answered in parts: model requests ended, of how many (absent for a job of one request)',
        },
      ),
    ),
    result: Type.Optional(
      Type.Object(
        { usage: JobUsage },
        { additionalProperties: true, description: 'when succeeded: the body the synchronous call returns, usage included' },
      ),
    ),
    reviewedResult: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'when a person completed the review of `result` (C21, docs/api.md "Human review"): the result as reviewed, without usage',
        },
      ),
    ),
    error: Type.Optional(Type.String({ description: 'when failed: what went wrong, for people' })),
    errorCode: Type.Optional(
      Type.Unsafe<JobErrorCode>({
        type: 'string',
        enum: [...Object.keys(ERROR_STATUS), ...JOB_ONLY_CODES],
        description: 'when failed: the stable code (C2, or worker_lost / deadline_exceeded / cancelled)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type JobView = Static<typeof JobView>

/** The columns of the jobs table the view reads (timestamps as the driver returns them). */
interface JobRow {
  id: string
  endpoint: string
  status: JobView['status']
  request_id: string
  mode: 'live' | 'test'
  created_at: string | Date
  updated_at: string | Date
  started_at: string | Date | null
  finished_at: string | Date | null
  result: string | null
  reviewed_result?: string | null
  error: JobError | null
  progress?: { done: number; total: number } | null
}

/** Any row of the jobs table: the webhook listener reads one with `select *`. */
export function jobView(jobRow: Row): JobView {
  const row = jobRow as JobRow
  const iso = (d: Date | string) => new Date(d).toISOString()
  return {
    jobId: row.id,
    endpoint: `/v1/${row.endpoint}`,
    status: row.status,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(row.started_at ? { startedAt: iso(row.started_at) } : {}),
    ...(row.finished_at ? { finishedAt: iso(row.finished_at) } : {}),
    requestId: row.request_id,
    livemode: row.mode === 'live',
    ...(row.progress ? { progress: { done: row.progress.done, total: row.progress.total } } : {}),
    ...(row.result ? { result: JSON.parse(row.result) as JobView['result'] } : {}),
    ...(row.reviewed_result ? { reviewedResult: JSON.parse(row.reviewed_result) as object } : {}),
    ...(row.error ? { error: row.error.message, errorCode: row.error.code } : {}),
  }
}

/**
 * The owner's job, of the calling key's mode (a test key's jobs and live jobs are apart); anything else,
 * malformed ids included, is the same 404 (C7).
 */
export async function getJob(db: Query, caller: { accountId: string; mode: 'live' | 'test' }, id: string): Promise<JobView> {
  const [row] = UUID.test(id)
    ? await db.sql(`select * from jobs where id = ? and account_id = ? and mode = ?`, [id, caller.accountId, caller.mode])
    : []
  if (!row) throw new ApiError('not_found', 'No such job.')
  return jobView(row)
}
