// What a client sees of a batch (C19): the request, the batch object (GET, the 202, the callback), the list.
import { Type, type Static } from '@sinclair/typebox'
import type { Query, Row } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { MAX_BATCH_ITEMS } from './limits.ts'

export const BatchWindow = Type.Union([Type.Literal('now'), Type.Literal('24h')], {
  description:
    'now: the priority of async jobs, full price; 24h: cheaper by BATCH_DISCOUNT_PERCENT (default 20 %), may run at lower priority',
})

/** POST /v1/batches; published as components.schemas.BatchRequest. */
export const BatchRequest = Type.Object(
  {
    endpoint: Type.String({ pattern: '^(?:/v1/)?[a-z0-9-]{1,64}$', description: 'the endpoint every item calls, e.g. parse or /v1/parse' }),
    items: Type.Array(
      Type.Object(
        {
          customId: Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'yours, unique within the batch; names the item in the results',
          }),
          body: Type.Object(
            {},
            { additionalProperties: true, description: 'what POST /v1/<endpoint> takes, without async and callbackUrl' },
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_BATCH_ITEMS },
    ),
    window: Type.Optional(BatchWindow),
    callbackUrl: Type.Optional(
      Type.String({ format: 'uri', maxLength: 2048, description: 'gets the batch object once, when every item has ended' }),
    ),
  },
  { additionalProperties: false },
)
export type BatchRequest = Static<typeof BatchRequest>

const Count = Type.Integer({ minimum: 0 })
export const BatchCounts = Type.Object(
  { total: Count, queued: Count, running: Count, succeeded: Count, failed: Count, cancelled: Count, expired: Count },
  { additionalProperties: false, description: 'items by state; queued + running + the four endings = total' },
)

const BatchStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
  Type.Literal('expired'),
])

const BatchId = Type.String({ pattern: '^bat_[0-9a-f]{32}$' })
const Time = Type.String({ format: 'date-time' })

/** GET /v1/batches/{id} and the callback's body; published as components.schemas.Batch. */
export const BatchView = Type.Object(
  {
    batchId: BatchId,
    endpoint: Type.String({ description: 'e.g. /v1/parse' }),
    window: BatchWindow,
    status: BatchStatus,
    counts: BatchCounts,
    credits: Type.Object(
      {
        held: Type.Integer({ minimum: 0, description: 'still held for the items not ended' }),
        charged: Type.Integer({ minimum: 0, description: 'charged for the items that succeeded' }),
      },
      { additionalProperties: false },
    ),
    requestId: Type.String(),
    livemode: Type.Boolean(),
    createdAt: Time,
    completedAt: Type.Optional(Type.String({ format: 'date-time', description: 'when the last item ended' })),
    expiresAt: Type.String({ format: 'date-time', description: 'items not ended by then end expired, free' }),
  },
  { additionalProperties: false },
)
export type BatchView = Static<typeof BatchView>

/** The 202 of POST /v1/batches; published as components.schemas.BatchAccepted. */
export const BatchAccepted = Type.Object(
  {
    batchId: BatchId,
    status: Type.Literal('queued'),
    counts: BatchCounts,
    credits: Type.Object(
      { held: Type.Integer({ minimum: 0, description: 'the sum of the items’ prices, held until each item ends' }) },
      { additionalProperties: false },
    ),
    requestId: Type.String(),
    livemode: Type.Boolean(),
  },
  { additionalProperties: false, description: 'The batch is at `Location` (GET /v1/batches/{id})' },
)

/** The 200 of a dry run (Service-Dry-Run: 1); published as components.schemas.BatchQuote. */
export const BatchQuote = Type.Object(
  {
    dryRun: Type.Literal(true),
    endpoint: Type.String({ description: 'the endpoint the items call, e.g. /v1/parse' }),
    liveStatus: Type.Integer({ description: 'the status the batch would answer now (202, or 402 …)' }),
    items: Type.Integer({ minimum: 1 }),
    wouldCharge: Type.Integer({
      minimum: 0,
      description: 'the sum of the items’ prices after any discount, if every item succeeds (0 when refused, or a test key)',
    }),
    price: Type.Integer({ minimum: 0, description: 'the sum of the items’ prices after any discount: what acceptance would hold' }),
    balance: Type.Integer({ description: 'credits available now (balance minus open holds)' }),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)

/** One line of GET /v1/batches/{id}/results; published as components.schemas.BatchResultLine. */
export const BatchResultLine = Type.Object(
  {
    customId: Type.String(),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('succeeded'),
      Type.Literal('failed'),
      Type.Literal('cancelled'),
      Type.Literal('expired'),
    ]),
    result: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'succeeded: the body the sync call returns, usage included' }),
    ),
    error: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        { additionalProperties: false, description: 'failed, cancelled, expired: why' },
      ),
    ),
  },
  { additionalProperties: false },
)

export const batchIdOf = (id: string) => `bat_${id.replace(/-/g, '')}`

/** The row id of a `bat_…` id, or null for anything else. */
export function rowIdOf(batchId: string): string | null {
  const m = /^bat_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(batchId)
  return m ? m.slice(1).join('-') : null
}

interface BatchRow {
  id: string
  endpoint: string
  batch_window: 'now' | '24h'
  status: 'queued' | 'cancelled' | 'completed' | 'expired'
  mode: 'live' | 'test'
  total: number
  succeeded: number
  failed: number
  cancelled: number
  expired: number
  quoted: string
  charged: string
  released: string
  request_id: string
  created_at: Date | string
  expires_at: Date | string
  completed_at: Date | string | null
  /** items running now (BATCH_COLUMNS) */
  running: number
}

/** The batches columns a view needs, from `batches b`. */
export const BATCH_COLUMNS = `b.*, (select count(*)::int from jobs j where j.batch_id = b.id and j.status = 'running') as running`

export function batchView(row: Row): BatchView {
  const b = row as unknown as BatchRow
  const ended = b.succeeded + b.failed + b.cancelled + b.expired
  const iso = (d: Date | string) => new Date(d).toISOString()
  return {
    batchId: batchIdOf(b.id),
    endpoint: `/v1/${b.endpoint}`,
    window: b.batch_window,
    status: b.status === 'queued' && (ended > 0 || b.running > 0) ? 'running' : b.status,
    counts: {
      total: b.total,
      queued: b.total - ended - b.running,
      running: b.running,
      succeeded: b.succeeded,
      failed: b.failed,
      cancelled: b.cancelled,
      expired: b.expired,
    },
    credits: { held: Number(b.quoted) - Number(b.charged) - Number(b.released), charged: Number(b.charged) },
    requestId: b.request_id,
    livemode: b.mode === 'live',
    createdAt: iso(b.created_at),
    ...(b.completed_at ? { completedAt: iso(b.completed_at) } : {}),
    expiresAt: iso(b.expires_at),
  }
}

/** The caller's batch of its key's mode; any other id is the same 404. */
export async function findBatch(db: Query, caller: { accountId: string; mode: 'live' | 'test' }, batchId: string): Promise<Row> {
  const id = rowIdOf(batchId)
  const [row] = id
    ? await db.sql(`select ${BATCH_COLUMNS} from batches b where b.id = ? and b.account_id = ? and b.mode = ?`, [
        id,
        caller.accountId,
        caller.mode,
      ])
    : []
  if (!row) throw new ApiError('not_found', 'No such batch.')
  return row
}
