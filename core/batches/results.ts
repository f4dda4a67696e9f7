// GET /v1/batches/{id}/results: JSON Lines in item order, one {customId, status, result? | error?} a line, a
// succeeded item's result being the stored body of its sync answer, byte for byte. Read a page at a time by
// item index and written as the client takes it, so 10,000 results never sit in memory together.
import { Readable } from 'node:stream'
import type { Query } from '../db/database.ts'

const PAGE = 500

interface ItemRow {
  batch_index: number
  custom_id: string
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  result: string | null
  error: { code: string; message: string } | null
}

function line(r: ItemRow): string {
  const head = `{"customId":${JSON.stringify(r.custom_id)},"status":`
  if (r.status === 'succeeded') return `${head}"succeeded","result":${r.result}}\n`
  if (r.status !== 'failed') return `${head}"${r.status}"}\n`
  const status = r.error?.code === 'cancelled' ? 'cancelled' : r.error?.code === 'deadline_exceeded' ? 'expired' : 'failed'
  return `${head}"${status}","error":${JSON.stringify({ code: r.error?.code ?? 'internal_error', message: r.error?.message ?? '' })}}\n`
}

/** The results of the batch with row id `batchId` (already found to be the caller's) as a stream. */
export function resultLines(db: Query, batchId: string): Readable {
  async function* pages() {
    let after = -1
    for (;;) {
      const rows = await db.sql<ItemRow & Record<string, unknown>>(
        `select batch_index, custom_id, status, result, error from jobs where batch_id = ? and batch_index > ? order by batch_index limit ?`,
        [batchId, after, PAGE],
      )
      if (!rows.length) return
      yield rows.map(line).join('')
      after = rows[rows.length - 1]!.batch_index
      if (rows.length < PAGE) return
    }
  }
  return Readable.from(pages(), { objectMode: false, highWaterMark: 1 })
}
