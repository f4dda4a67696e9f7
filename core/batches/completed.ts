// What happens once when a batch's last item has ended, in the transaction that ended it (core/batches/endings.ts;
// a test key's batch: its acceptance's): a batch.completed event (C17) with the batch object, and its callbackUrl
// gets the same object, delivered and retried by core/webhooks as a job's callback is.
import { Type, type Static } from '@sinclair/typebox'
import type { Query } from '../db/database.ts'
import { emitEvent } from '../events/emit.ts'
import type { EventTypeInfo } from '../events/types.ts'
import { recordBatchDelivery } from '../webhooks/webhooks.ts'
import { BATCH_COLUMNS, batchView, BatchView } from './view.ts'
import { exampleBatch } from './openapi.ts'

/** The batch event type with its data (published in the document's webhooks beside core/events' types). */
export const BATCH_EVENT_TYPES = {
  'batch.completed': {
    data: BatchView,
    summary:
      'Every item of a batch has ended (succeeded, failed, cancelled or expired); data is the Batch object (also POSTed to the batch’s own callbackUrl).',
    example: {
      ...exampleBatch,
      status: 'completed',
      counts: { ...exampleBatch.counts, queued: 0, running: 0, succeeded: 3 },
      credits: { held: 0, charged: 6 },
      completedAt: '2026-03-01T10:05:00.000Z',
    },
  },
} as const satisfies Record<'batch.completed', EventTypeInfo>

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
    await emitEvent(q, { accountId: row.account_id as string, type: 'batch.completed', livemode: batch.livemode, data: batch }, now)
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
