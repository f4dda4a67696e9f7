// Reviews (C21): a result the account's rule flags is kept with its flagged fields and the document's page text
// until a person completes it (accept or correct each field). Completing writes the reviewed result (the
// capability's own published schema, corrected values carrying evidence of source "review"), an audit entry, and
// for an async call the job's reviewed result, in one transaction. A review never touches money.
import { Type, type Static } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ulid } from 'ulid'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { emitEvent } from '../events/emit.ts'
import type { EventTypeInfo } from '../events/types.ts'
import type { SecretBox } from '../secrets.ts'
import { flagged, gradedValues, type Graded, type ReviewRule } from './rule.ts'

const Status = Type.Union([Type.Literal('pending'), Type.Literal('completed')])
const Reviewer = Type.Object(
  {
    type: Type.Union([Type.Literal('member'), Type.Literal('key')]),
    id: Type.String(),
    email: Type.Optional(Type.String()),
    keyPrefix: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)
type Reviewer = Static<typeof Reviewer>

/** What a flagged result carries: `review: {id, status, fields}`. Published in every extracting endpoint's result. */
export const ReviewMark = Type.Object(
  {
    id: Type.String({ description: 'rev_…; GET /v1/reviews/{id}' }),
    status: Status,
    fields: Type.Array(Type.String(), { description: 'JSON pointers of the values sent to a person, e.g. /totalAmount, /lineItems/2' }),
  },
  { additionalProperties: false, description: 'present when the account’s review settings sent this result to a person (C21)' },
)
export type ReviewMark = Static<typeof ReviewMark>

const ReviewEventData = Type.Object(
  {
    reviewId: Type.String({ description: 'rev_…; GET /v1/reviews/{id}' }),
    endpoint: Type.String({ description: 'e.g. /v1/parse' }),
    requestId: Type.String(),
    fields: Type.Array(Type.String(), { description: 'JSON pointers of the values sent to a person' }),
    reviewer: Type.Optional(Reviewer),
  },
  { additionalProperties: false },
)
const exampleReview = {
  reviewId: 'rev_01JNMQ6ZK3V7T5W8X9Y0A1B2C3',
  endpoint: '/v1/invoice',
  requestId: 'req_01HZX3',
  fields: ['/totalAmount'],
}

/** The review event types with their data (published in the document's webhooks beside core/events' types). */
export const REVIEW_EVENT_TYPES = {
  'review.pending': {
    data: ReviewEventData,
    summary: 'A result was sent to review by the account’s review settings: its values code could not verify wait for a person.',
    example: exampleReview,
  },
  'review.completed': {
    data: ReviewEventData,
    summary: 'A person completed a review; GET /v1/reviews/{id} has the reviewed result (an async call’s job has it too).',
    example: { ...exampleReview, reviewer: { type: 'member', id: '01890000-0000-7000-8000-000000000003', email: 'ada@example.com' } },
  },
} as const satisfies Record<'review.pending' | 'review.completed', EventTypeInfo>

const Decision = Type.Object(
  {
    path: Type.String({ description: 'one of the review’s fields' }),
    action: Type.Union([Type.Literal('accept'), Type.Literal('correct')]),
    value: Type.Optional(
      Type.Unknown({ description: 'with correct: the right value (for a list item, an object of the item’s properties or its value)' }),
    ),
  },
  { additionalProperties: false },
)

/** POST /v1/reviews/{id}/complete: one decision per flagged field. */
export const CompleteInput = Type.Object({ fields: Type.Array(Decision, { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false })
export type CompleteInput = Static<typeof CompleteInput>

/** A review in the queue (GET /v1/reviews). */
export const ReviewSummary = Type.Object(
  {
    id: Type.String(),
    status: Status,
    endpoint: Type.String({ description: 'e.g. /v1/parse' }),
    requestId: Type.String(),
    jobId: Type.Optional(Type.String({ format: 'uuid', description: 'the async job whose result this is' })),
    fields: Type.Array(Type.String()),
    livemode: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
    reviewer: Type.Optional(Reviewer),
  },
  { additionalProperties: false },
)
export type ReviewSummary = Static<typeof ReviewSummary>

const FlaggedField = Type.Object(
  {
    path: Type.String(),
    value: Type.Unknown({ description: 'the value as answered (for a list item: the item without its evidence)' }),
    evidence: Type.Union([Type.Object({ page: Type.Union([Type.Integer(), Type.Null()]), quote: Type.String() }), Type.Null()]),
    grounded: Type.Boolean(),
    confidence: Type.Number(),
    context: Type.Union(
      [
        Type.Object(
          {
            page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
            text: Type.String({ description: 'the page text around the quote' }),
            quoteStart: Type.Integer({ minimum: 0, description: 'where the quote starts in `text`' }),
            quoteEnd: Type.Integer({ minimum: 0 }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'null when code found no quote: the value is not in the document as quoted; read `pages`' },
    ),
  },
  { additionalProperties: false },
)

/** GET /v1/reviews/{id}. */
export const ReviewDetail = Type.Object(
  {
    ...ReviewSummary.properties,
    result: Type.Object({}, { additionalProperties: true, description: 'the result as the call answered it (without usage)' }),
    flagged: Type.Array(FlaggedField),
    pages: Type.Array(Type.String(), { description: 'the document’s text, page by page (empty for an image)' }),
    decisions: Type.Optional(Type.Array(Decision)),
    reviewedResult: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: 'when completed: the result as reviewed, valid against the endpoint’s schema' },
      ),
    ),
  },
  { additionalProperties: false },
)
export type ReviewDetail = Static<typeof ReviewDetail>

export const ReviewsPage = Type.Object(
  {
    reviews: Type.Array(ReviewSummary),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
  },
  { additionalProperties: false },
)

export const ReviewsQuery = Type.Object(
  {
    status: Type.Optional(Status),
    endpoint: Type.Optional(Type.String({ pattern: '^(?:/v1/)?[a-z0-9-]{1,64}$', description: 'e.g. parse or /v1/parse' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'reviews per page, 1–100; default 20' })),
  },
  { additionalProperties: false },
)
export type ReviewsQuery = Static<typeof ReviewsQuery>

/** How long a completed review is kept (C21). */
export const REVIEW_RETENTION_DAYS = 30
/** Characters of page text shown each side of a quote. */
const AROUND = 400

/** Whose queue: an account's reviews of one mode (a test key sees test reviews only). */
export interface Scope {
  accountId: string
  livemode: boolean
}

export interface ReviewedCall extends Scope {
  endpoint: string
  requestId: string
  jobId?: string
}

/** What a review keeps of the call's document: its page text, and a PDF's bytes with the pages a reviewer may see. */
export interface ReviewSource {
  pages: readonly string[]
  request: object
  pdf?: { bytes: Uint8Array; pages: number[] }
}

/**
 * The hook of a finished call: when `rule` flags any of the result's values, the review is written (a PDF's bytes
 * sealed with `secrets` beside it) and the result comes back carrying `review`; otherwise the result unchanged.
 */
export async function openReview(
  db: Database,
  secrets: SecretBox,
  call: ReviewedCall,
  rule: ReviewRule,
  result: object,
  source: ReviewSource,
  now: Date,
): Promise<object> {
  const fields = flagged(rule, gradedValues(result)).map((v) => v.path)
  if (fields.length === 0) return result
  const review: ReviewMark = { id: `rev_${ulid()}`, status: 'pending', fields }
  const pending = { reviewId: review.id, endpoint: `/v1/${call.endpoint}`, requestId: call.requestId, fields }
  const pdf = source.pdf && { pages: source.pdf.pages, sealed: secrets.seal(Buffer.from(source.pdf.bytes).toString('base64')) }
  await db.tx(async (q) => {
    await q.sql(
      `insert into reviews (id, account_id, livemode, endpoint, request_id, job_id, fields, request, result, pages, created_at)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?::jsonb, ?)`,
      [
        review.id,
        call.accountId,
        call.livemode,
        call.endpoint,
        call.requestId,
        call.jobId ?? null,
        JSON.stringify(fields),
        JSON.stringify(source.request),
        JSON.stringify(result),
        JSON.stringify(source.pages),
        now,
      ],
    )
    if (pdf) await q.sql(`insert into review_documents (review_id, pages, document) values (?, ?, ?)`, [review.id, pdf.pages, pdf.sealed])
    await emitEvent(q, { accountId: call.accountId, type: 'review.pending', livemode: call.livemode, data: pending }, now)
  })
  return { ...result, review }
}

interface Row {
  id: string
  account_id: string
  livemode: boolean
  endpoint: string
  request_id: string
  job_id: string | null
  status: 'pending' | 'completed'
  fields: string[]
  result?: Record<string, unknown>
  pages?: string[]
  reviewed_result?: Record<string, unknown> | null
  decisions?: CompleteInput['fields'] | null
  reviewer: Reviewer | null
  created_at: string | Date
  completed_at: string | Date | null
}

const iso = (d: string | Date) => new Date(d).toISOString()
const summary = (r: Row): ReviewSummary => ({
  id: r.id,
  status: r.status,
  endpoint: `/v1/${r.endpoint}`,
  requestId: r.request_id,
  ...(r.job_id ? { jobId: r.job_id } : {}),
  fields: r.fields,
  livemode: r.livemode,
  createdAt: iso(r.created_at),
  ...(r.completed_at ? { completedAt: iso(r.completed_at) } : {}),
  ...(r.reviewer ? { reviewer: r.reviewer } : {}),
})

const SUMMARY_COLUMNS = 'id, account_id, livemode, endpoint, request_id, job_id, status, fields, reviewer, created_at, completed_at'

const encodeCursor = (r: Row) => Buffer.from(`r:${iso(r.created_at)}|${r.id}`).toString('base64url')
function decodeCursor(cursor: string): [string, string] {
  const m = /^r:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(rev_[0-9A-Z]{26})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return [m[1]!, m[2]!]
}

/** The queue, newest first. */
export async function listReviews(db: Query, scope: Scope, q: ReviewsQuery): Promise<Static<typeof ReviewsPage>> {
  const limit = q.limit ?? 20
  const where: Array<[string, unknown[]]> = [
    ['account_id = ?', [scope.accountId]],
    ['livemode = ?', [scope.livemode]],
  ]
  if (q.status) where.push(['status = ?', [q.status]])
  if (q.endpoint) where.push(['endpoint = ?', [q.endpoint.replace(/^\/v1\//, '')]])
  if (q.cursor) where.push(['(created_at, id) < (?::timestamptz, ?)', decodeCursor(q.cursor)])
  const rows = await db.sql<Row>(
    `select ${SUMMARY_COLUMNS} from reviews where ${where.map(([c]) => c).join(' and ')} order by created_at desc, id desc limit ?`,
    [...where.flatMap(([, p]) => p), limit + 1],
  )
  const reviews = rows.slice(0, limit).map(summary)
  return rows.length > limit ? { reviews, nextCursor: encodeCursor(rows[limit - 1]!) } : { reviews }
}

async function reviewRow(db: Query, scope: Scope, id: string, lock = false): Promise<Row> {
  const [row] = await db.sql<Row>(
    `select ${SUMMARY_COLUMNS}, result, pages, reviewed_result, decisions from reviews where id = ? and account_id = ? and livemode = ?${lock ? ' for update' : ''}`,
    [id, scope.accountId, scope.livemode],
  )
  if (!row) throw new ApiError('not_found', 'No such review.')
  return row
}

/** The value at a JSON pointer's parts, or undefined. */
function at(value: unknown, where: readonly string[]): unknown {
  return where.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), value)
}
const parts = (path: string) =>
  path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))

const GRADE_KEYS = new Set(['evidence', 'grounded', 'confidence'])
/** A flagged value as the reviewer sees it: a list item without its evidence, a single field as is. */
function valueOf(result: object, path: string): unknown {
  const v = at(result, parts(path))
  return v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => !GRADE_KEYS.has(k))) : v
}

/** Where a quote is in a page's text, [start, end): its whitespace matches any whitespace (quotes are one line). */
export function locate(text: string, quote: string): [number, number] | null {
  const pattern = quote
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+')
  const m = pattern ? new RegExp(pattern, 'iu').exec(text) : null
  return m ? [m.index, m.index + m[0].length] : null
}

/** The page text around a quote, and where the quote is in it. */
function around(pages: readonly string[], evidence: Graded['evidence']): Static<typeof FlaggedField>['context'] {
  if (!evidence) return null
  const text = pages[(evidence.page ?? 1) - 1] ?? ''
  const found = locate(text, evidence.quote)
  if (!found) return { page: evidence.page, text: text.slice(0, 2 * AROUND), quoteStart: 0, quoteEnd: 0 }
  const start = Math.max(0, found[0] - AROUND)
  const end = Math.min(text.length, found[1] + AROUND)
  return { page: evidence.page, text: text.slice(start, end), quoteStart: found[0] - start, quoteEnd: found[1] - start }
}

export async function getReview(db: Query, scope: Scope, id: string): Promise<ReviewDetail> {
  const row = await reviewRow(db, scope, id)
  const result = row.result!
  const graded = new Map(gradedValues(result).map((g) => [g.path, g]))
  const flaggedFields = row.fields.map((path) => {
    const g = graded.get(path)
    return {
      path,
      value: valueOf(result, path),
      evidence: g?.evidence ?? null,
      grounded: g?.grounded ?? false,
      confidence: g?.confidence ?? 0,
      context: around(row.pages!, g?.evidence ?? null),
    }
  })
  return {
    ...summary(row),
    result,
    flagged: flaggedFields,
    pages: row.pages!,
    ...(row.decisions ? { decisions: row.decisions } : {}),
    ...(row.reviewed_result ? { reviewedResult: row.reviewed_result } : {}),
  }
}

const reviewerOf = (acting: Acting): Reviewer => {
  const { actor } = acting
  if (actor.type !== 'member' && actor.type !== 'key') throw new ApiError('permission_denied', 'Only a member or a key may review.')
  return {
    type: actor.type,
    id: actor.id!,
    ...(actor.email ? { email: actor.email } : {}),
    ...(actor.keyPrefix ? { keyPrefix: actor.keyPrefix } : {}),
  }
}

/** The result with the decisions applied: corrected values and their review evidence; confidence 1 for both actions. */
function applyDecisions(result: Record<string, unknown>, row: Row, decisions: CompleteInput['fields'], reviewer: Reviewer, when: Date) {
  const reviewed = structuredClone(result)
  const grades = new Set(gradedValues(result).map((g) => g.path))
  decisions.forEach((d, i) => {
    const where = parts(d.path)
    const reviewEvidence = { source: 'review', action: d.action, reviewer, reviewId: row.id, reviewedAt: when.toISOString() }
    const target = at(reviewed, where)
    const isItem = target !== null && typeof target === 'object' && !Array.isArray(target) && grades.has(d.path) && 'grounded' in target
    const grade = isItem ? (target as Record<string, unknown>) : groundingOf(reviewed, where)
    if (d.action === 'correct') {
      if (!('value' in d))
        throw new ApiError('invalid_request', 'A correction needs its value.', [
          { path: `/fields/${i}/value`, message: 'required with action "correct"' },
        ])
      if (isItem) {
        const item = target as Record<string, unknown>
        if (d.value && typeof d.value === 'object' && !Array.isArray(d.value)) {
          for (const [k, v] of Object.entries(d.value)) if (!GRADE_KEYS.has(k)) item[k] = v
        } else if ('value' in item) item.value = d.value
        else
          throw new ApiError('invalid_request', `${d.path} is a list item: correct it with an object of its properties.`, [
            { path: `/fields/${i}/value`, message: 'an object of the item’s properties' },
          ])
      } else setAt(reviewed, where, d.value)
    } else if ('value' in d)
      throw new ApiError('invalid_request', 'An accepted value keeps its value.', [
        { path: `/fields/${i}/value`, message: 'only with action "correct"' },
      ])
    if (grade) {
      const kept = d.action === 'accept' && grade.evidence && typeof grade.evidence === 'object' && !('source' in grade.evidence)
      Object.assign(grade, { evidence: kept ? grade.evidence : reviewEvidence, grounded: true, confidence: 1 })
    }
  })
  return reviewed
}

/** The `grounding` entry of a single-valued field (/vendor/name → grounding["vendor.name"]). */
function groundingOf(result: Record<string, unknown>, where: readonly string[]): Record<string, unknown> | null {
  const grounding = result.grounding as Record<string, Record<string, unknown>> | undefined
  return grounding?.[where.join('.')] ?? null
}

function setAt(result: Record<string, unknown>, where: readonly string[], value: unknown) {
  let o: Record<string, unknown> = result
  for (const k of where.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>
  Object.defineProperty(o, where.at(-1)!, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Completes a pending review: one decision for each flagged field, the reviewed result valid against the endpoint's
 * published result schema (else 400 naming what is wrong), an audit entry, and an async call's job gains the
 * reviewed result. Returns the review as completed.
 */
export async function completeReview(
  db: Database,
  capabilities: ReadonlyMap<string, { validateResponse: ValidateFunction }>,
  scope: Scope,
  id: string,
  input: CompleteInput,
  acting: Acting,
): Promise<ReviewDetail> {
  const reviewer = reviewerOf(acting)
  await db.tx(async (q) => {
    const row = await reviewRow(q, scope, id, true)
    if (row.status !== 'pending') throw new ApiError('invalid_request', 'This review is already completed.')
    const seen = new Set<string>()
    input.fields.forEach((d, i) => {
      if (!row.fields.includes(d.path) || seen.has(d.path))
        throw new ApiError('invalid_request', `${d.path} is not a field of this review, or is decided twice.`, [
          { path: `/fields/${i}/path`, message: `one of ${row.fields.join(', ')}, once` },
        ])
      seen.add(d.path)
    })
    const missing = row.fields.filter((f) => !seen.has(f))
    if (missing.length)
      throw new ApiError('invalid_request', `Every flagged field needs a decision; missing: ${missing.join(', ')}.`, [
        { path: '/fields', message: `missing ${missing.join(', ')}` },
      ])
    const reviewed = applyDecisions(row.result!, row, input.fields, reviewer, acting.at)
    const validate = capabilities.get(row.endpoint)?.validateResponse
    if (validate && !validate(reviewed))
      throw new ApiError(
        'invalid_request',
        `The reviewed result does not match the ${row.endpoint} result schema.`,
        (validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid' })),
      )
    const published = { ...reviewed, review: { id: row.id, status: 'completed', fields: row.fields } }
    await q.sql(
      `update reviews set status = 'completed', reviewed_result = ?::jsonb, decisions = ?::jsonb, reviewer = ?::jsonb, completed_at = ? where id = ?`,
      [JSON.stringify(published), JSON.stringify(input.fields), JSON.stringify(reviewer), acting.at, row.id],
    )
    if (row.job_id) await q.sql(`update jobs set reviewed_result = ? where id = ?`, [JSON.stringify(published), row.job_id])
    const completed = { reviewId: row.id, endpoint: `/v1/${row.endpoint}`, requestId: row.request_id, fields: row.fields, reviewer }
    await emitEvent(q, { accountId: scope.accountId, type: 'review.completed', livemode: row.livemode, data: completed }, acting.at)
    await audit(q, acting, {
      accountId: scope.accountId,
      action: 'review.completed',
      target: { type: 'review', id: row.id },
      details: {
        endpoint: row.endpoint,
        requestId: row.request_id,
        decisions: input.fields.map((d) => ({ path: d.path, action: d.action })),
      },
    })
  })
  return getReview(db, scope, id)
}

/** Completed reviews past their retention (maintenance). */
export async function pruneReviews(db: Query, now: Date): Promise<number> {
  const rows = await db.sql(`delete from reviews where completed_at < ?::timestamptz - make_interval(days => ?) returning id`, [
    now,
    REVIEW_RETENTION_DAYS,
  ])
  return rows.length
}
