// Reading the request log (GET /v1/requests, GET /v1/requests/{requestId}, the dashboard's Requests page): newest
// first, with a cursor and filters, always within one account and one mode. Retention: maintenance drops the
// table's daily partitions past the configured days (core/records).
import { Type, type Static } from '@sinclair/typebox'
import type { KeyMode } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'

const DateTime = Type.String({ format: 'date-time' })

/** One call, as GET /v1/requests lists it; published as components.schemas.RequestLogEntry. */
export const RequestLogEntry = Type.Object(
  {
    requestId: Type.String({ description: 'the X-Request-Id of the call (req_…)' }),
    createdAt: DateTime,
    method: Type.String(),
    endpoint: Type.String({ description: 'the route, e.g. /v1/classify or /v1/jobs/{id}' }),
    status: Type.Integer({ description: 'the HTTP status answered' }),
    errorCode: Type.Optional(Type.String({ description: 'the error code of a refusal (C2)' })),
    credits: Type.Integer({ minimum: 0, description: 'credits this request charged (an async job is charged when it succeeds)' }),
    latencyMs: Type.Number({ minimum: 0, description: 'time from receiving the request to answering it' }),
    idempotencyKey: Type.Optional(Type.String()),
    keyId: Type.String({ format: 'uuid' }),
    keyPrefix: Type.String({ description: 'the first 12 characters of the key, as the dashboard shows them' }),
    mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    livemode: Type.Boolean({ description: 'false: a test key made the call' }),
    errorMessage: Type.Optional(Type.String({ description: 'the message of the refusal (for people; may change)' })),
    dryRun: Type.Boolean({ description: 'a Service-Dry-Run quote: nothing ran; liveStatus is what the call would have answered' }),
    liveStatus: Type.Optional(
      Type.Integer({ description: 'on a dry run: the status the live call would have answered (errorCode: its refusal)' }),
    ),
    replayed: Type.Boolean({ description: "an Idempotency-Key's recorded answer, sent again: nothing ran, nothing was charged" }),
    cache: Type.Optional(
      Type.Union([Type.Literal('hit'), Type.Literal('miss'), Type.Literal('bypass')], {
        description: 'on an endpoint with a result cache: its Service-Cache answer (hit: the stored result, the hit price charged)',
      }),
    ),
    jobId: Type.Optional(Type.String({ format: 'uuid', description: 'on a 202: the job it accepted (GET /v1/jobs/{id})' })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'the tags the call sent in Service-Metadata' })),
  },
  { additionalProperties: false },
)
export type RequestLogEntry = Static<typeof RequestLogEntry>

export interface RequestFilter {
  mode: KeyMode
  endpoint?: string
  /** An exact status (404) or a class (4 for 4xx). */
  status?: { exact: number } | { class: number }
  keyId?: string
  from?: Date
  to?: Date
  requestId?: string
  idempotencyKey?: string
  /** Rows whose Service-Metadata holds every one of these tags. */
  metadata?: Record<string, string>
}

const encodeCursor = (id: string) => Buffer.from(`r:${id}`).toString('base64url')

function decodeCursor(cursor: string): string {
  const m = /^r:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return m[1]!
}

interface Row {
  id: string
  request_id: string
  created_at: string
  method: string
  endpoint: string
  status: number
  error_code: string | null
  credits: string
  latency_ms: number
  idempotency_key: string | null
  key_id: string
  key_prefix: string
  mode: KeyMode
  dry_run: boolean
  live_status: number | null
  replayed: boolean
  cache: 'hit' | 'miss' | 'bypass' | null
  error_message: string | null
  job_id: string | null
  metadata: Record<string, string> | null
}

export async function listRequests(
  db: Query,
  accountId: string,
  f: RequestFilter,
  page: { cursor?: string; limit: number },
): Promise<{ requests: RequestLogEntry[]; nextCursor?: string }> {
  const conditions: Array<[string, unknown]> = [
    ['account_id = ?', accountId],
    ['mode = ?', f.mode],
  ]
  if (f.endpoint) conditions.push(['endpoint = ?', f.endpoint])
  if (f.status && 'exact' in f.status) conditions.push(['status = ?', f.status.exact])
  if (f.status && 'class' in f.status) conditions.push(['status / 100 = ?', f.status.class])
  if (f.keyId) conditions.push(['key_id = ?::uuid', f.keyId])
  if (f.from) conditions.push(['created_at >= ?', f.from])
  if (f.to) conditions.push(['created_at < ?', f.to])
  if (f.requestId) conditions.push(['request_id = ?', f.requestId])
  if (f.idempotencyKey) conditions.push(['idempotency_key = ?', f.idempotencyKey])
  // @> with jsonb_path_ops: the partial GIN index of tagged rows (migration 0018).
  if (f.metadata) conditions.push(['metadata is not null and metadata @> ?::jsonb', JSON.stringify(f.metadata)])
  if (page.cursor) conditions.push(['id < ?', decodeCursor(page.cursor)])
  const rows = await db.sql<Row>(`select * from request_log where ${conditions.map(([c]) => c).join(' and ')} order by id desc limit ?`, [
    ...conditions.map(([, p]) => p),
    page.limit + 1,
  ])
  const requests = rows.slice(0, page.limit).map(entry)
  return rows.length > page.limit ? { requests, nextCursor: encodeCursor(rows[page.limit - 1]!.id) } : { requests }
}

/** One request of the account by its id: of any mode for a live key, of test keys for a test key. */
export async function findRequest(db: Query, accountId: string, requestId: string, keyMode: KeyMode): Promise<RequestLogEntry | null> {
  const [row] = await db.sql<Row>(
    `select * from request_log where account_id = ? and request_id = ? and (mode = 'test' or ? = 'live') order by id limit 1`,
    [accountId, requestId, keyMode],
  )
  return row ? entry(row) : null
}

function entry(r: Row): RequestLogEntry {
  return {
    requestId: r.request_id,
    createdAt: new Date(r.created_at).toISOString(),
    method: r.method,
    endpoint: r.endpoint,
    status: r.status,
    ...(r.error_code ? { errorCode: r.error_code } : {}),
    ...(r.error_message ? { errorMessage: r.error_message } : {}),
    credits: Number(r.credits),
    latencyMs: r.latency_ms,
    ...(r.idempotency_key !== null ? { idempotencyKey: r.idempotency_key } : {}),
    keyId: r.key_id,
    keyPrefix: r.key_prefix,
    mode: r.mode,
    livemode: r.mode === 'live',
    dryRun: r.dry_run,
    ...(r.live_status !== null ? { liveStatus: r.live_status } : {}),
    replayed: r.replayed,
    ...(r.cache ? { cache: r.cache } : {}),
    ...(r.job_id ? { jobId: r.job_id } : {}),
    ...(r.metadata ? { metadata: r.metadata } : {}),
  }
}
