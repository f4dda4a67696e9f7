// POST /v1/batches/{id}/cancel: the queued items end `cancelled`, free (the kernel's failJob, only while they
// are queued: an item a worker already claimed runs and ends as it would have).
import type { Caller } from '../http/caller.ts'
import { failJob } from '../jobs/end.ts'
import type { Services } from '../services.ts'
import { CANCELLED } from './endings.ts'
import { BATCH_COLUMNS, batchView, findBatch, type BatchView } from './view.ts'

export async function cancelBatch(services: Services, caller: Caller, batchId: string): Promise<BatchView> {
  const batch = await findBatch(services.db, caller, batchId)
  // Marked first, so the batch ends `cancelled` even if its last queued item ends in this very moment.
  await services.db.sql(`update batches set status = 'cancelled' where id = ? and status = 'queued'`, [batch.id])
  const queued = await services.db.sql<{ id: string }>(
    `select id from jobs where batch_id = ? and status = 'queued' order by batch_index`,
    [batch.id],
  )
  // All at once, so that they are written in groups (core/jobs/end.ts).
  await Promise.all(queued.map(({ id }) => failJob(services, id, CANCELLED, { statuses: ['queued'] })))
  const [row] = await services.db.sql(`select ${BATCH_COLUMNS} from batches b where b.id = ?`, [batch.id])
  return batchView(row!)
}
