// GET /v1/jobs (issue 30): the account's jobs of the calling key's mode, newest first, with a cursor. A listed
// job is its view without `result` (results can be large); GET /v1/jobs/{id} has the result.
import { Type, type Static } from '@sinclair/typebox'
import type { Caller } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { inputReader } from '../validation.ts'
import { jobView, JobView } from './view.ts'

export const JobsQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 100, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'jobs per page, 1–100; default 20' })),
    status: Type.Optional(JobView.properties.status),
    endpoint: Type.Optional(Type.String({ pattern: '^(?:/v1/)?[a-z0-9-]{1,64}$', description: 'e.g. parse or /v1/parse' })),
  },
  { additionalProperties: false },
)

export const JobSummary = Type.Omit(JobView, ['result', 'reviewedResult'], { additionalProperties: false })

export const JobsPage = Type.Object(
  {
    jobs: Type.Array(JobSummary),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
  },
  { additionalProperties: false },
)

/** The query parameters as OpenAPI publishes them (core/openapi/kernel-routes.ts lists the route in KERNEL_ROUTES). */
export const jobsParameters = Object.entries(JobsQuery.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema }))

const readQuery = inputReader(JobsQuery, 'query')

// The cursor is the last listed job's (created_at, id): the order of the list, stable under inserts.
const encodeCursor = (createdAt: Date, id: string) => Buffer.from(`j:${createdAt.toISOString()}|${id}`).toString('base64url')

function decodeCursor(cursor: string): [Date, string] {
  const m = /^j:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return [new Date(m[1]!), m[2]!]
}

export async function listJobs(db: Query, caller: Caller, rawQuery: unknown): Promise<Static<typeof JobsPage>> {
  const q = readQuery({ ...(rawQuery as object) })
  const limit = q.limit ?? 20
  const conditions: Array<[string, unknown[]]> = [
    ['account_id = ?', [caller.accountId]],
    ['mode = ?', [caller.mode]],
    ['batch_id is null', []], // a batch's items are listed by their batch (GET /v1/batches/{id}/results)
  ]
  if (q.status) conditions.push(['status = ?', [q.status]])
  if (q.endpoint) conditions.push(['endpoint = ?', [q.endpoint.replace(/^\/v1\//, '')]])
  if (q.cursor) conditions.push(['(created_at, id) < (?, ?::uuid)', decodeCursor(q.cursor)])
  const rows = await db.sql(
    `select id, endpoint, status, request_id, mode, created_at, updated_at, started_at, finished_at, error from jobs
      where ${conditions.map(([c]) => c).join(' and ')} order by created_at desc, id desc limit ?`,
    [...conditions.flatMap(([, p]) => p), limit + 1],
  )
  const jobs = rows.slice(0, limit).map((r) => jobView(r))
  const last = rows[limit - 1]
  return rows.length > limit && last ? { jobs, nextCursor: encodeCursor(new Date(last.created_at as string), last.id as string) } : { jobs }
}
