// GET /v1/batches: the account's batches of the calling key's mode, newest first, with a cursor.
import { Type, type Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { inputReader } from '../validation.ts'
import { BATCH_COLUMNS, batchView, BatchView } from './view.ts'

export const BatchesQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 100, description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'batches per page, 1–100; default 20' })),
  },
  { additionalProperties: false },
)

export const BatchesPage = Type.Object(
  {
    batches: Type.Array(BatchView),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next (older) page; absent on the last page' })),
  },
  { additionalProperties: false },
)

export const batchesParameters = Object.entries(BatchesQuery.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}))

const readQuery = inputReader(BatchesQuery, 'query')

const encodeCursor = (createdAt: Date, id: string) => Buffer.from(`b:${createdAt.toISOString()}|${id}`).toString('base64url')

function decodeCursor(cursor: string): [Date, string] {
  const m = /^b:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!m) throw new ApiError('invalid_request', 'The cursor is not valid.', [{ path: '/cursor', message: 'not a cursor from this API' }])
  return [new Date(m[1]!), m[2]!]
}

export async function listBatches(
  db: Query,
  caller: { accountId: string; mode: 'live' | 'test' },
  rawQuery: unknown,
): Promise<Static<typeof BatchesPage>> {
  const q = readQuery({ ...(rawQuery as object) })
  const limit = q.limit ?? 20
  const after = q.cursor ? decodeCursor(q.cursor) : null
  const rows = await db.sql(
    `select ${BATCH_COLUMNS} from batches b where b.account_id = ? and b.mode = ? ${after ? 'and (b.created_at, b.id) < (?, ?::uuid)' : ''}
      order by b.created_at desc, b.id desc limit ?`,
    [caller.accountId, caller.mode, ...(after ?? []), limit + 1],
  )
  const batches = rows.slice(0, limit).map(batchView)
  const last = rows[limit - 1]
  return rows.length > limit && last
    ? { batches, nextCursor: encodeCursor(new Date(last.created_at as string), last.id as string) }
    : { batches }
}
