// What happens once when a batch's last item has ended, in the transaction that ended it (core/batches/endings.ts;
// a test key's batch: its acceptance's): its callbackUrl gets the batch object, delivered and retried by
// core/webhooks as a job's callback is.
import { Type, type Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { recordBatchDelivery } from '../webhooks/webhooks.ts'
import { BATCH_COLUMNS, batchView, BatchView } from './view.ts'

/** The body POSTed to a batch's callbackUrl; published as components.schemas.BatchWebhookPayload. */
export const BatchWebhookPayload = Type.Object(
  {
    deliveryId: Type.String({ description: 'the same on every attempt (= webhook-id): deduplicate on it' }),
    event: Type.Literal('batch.completed'),
    createdAt: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    batch: BatchView,
  },
  { additionalProperties: false },
)

/** The batches (row ids) whose every item has just ended. */
export async function batchesCompleted(q: Query, now: Date, batchIds: string[]): Promise<void> {
  const rows = await q.sql(`select ${BATCH_COLUMNS} from batches b where b.id = any(?::uuid[]) order by b.id`, [batchIds])
  for (const row of rows) {
    const batch = batchView(row)
    if (!row.callback_url) continue
    await recordBatchDelivery(q, now, {
      batchId: row.id as string,
      accountId: row.account_id as string,
      mode: row.mode as 'live' | 'test',
      url: row.callback_url as string,
      event: 'batch.completed',
      payload: (deliveryId) =>
        JSON.stringify({
          deliveryId,
          event: 'batch.completed',
          createdAt: now.toISOString(),
          livemode: batch.livemode,
          batch,
        } satisfies Static<typeof BatchWebhookPayload>),
    })
  }
}
