// The deliver_event task: one attempt of one delivery of an event to a webhook endpoint, signed with the Standard
// Webhooks scheme (webhook-id = the event id, on every attempt and every resend) and posted by core/webhooks
// under C8's rules (address guard at every attempt, no redirects, the backoff of WEBHOOK_RETRY_DELAYS). At least
// once: a crash between the POST and the record means one more attempt, which the receiver dedupes by webhook-id.
import type { Services } from '../services.ts'
import { SecretUnreadable } from '../secrets.ts'
import {
  deliveryStatus,
  nextAttemptAt,
  postSigned,
  recordAttempt,
  ROTATION_OVERLAP_HOURS,
  standardWebhookHeaders,
  type SentAttempt,
} from '../webhooks/webhooks.ts'
import { DELIVER_EVENT_TASK } from './emit.ts'
import { eventPayload } from './log.ts'

interface PendingDelivery {
  endpoint_id: string | null
  url: string | null
  enabled: boolean | null
  secret: string | null
  previous_secret: string | null
  id: string
  seq: string
  type: Parameters<typeof eventPayload>[0]['type']
  livemode: boolean
  data: Parameters<typeof eventPayload>[0]['data']
  created_at: Date
}

export function deliverEventTask(services: Services) {
  const { db } = services
  return async (payload: unknown): Promise<void> => {
    const { deliveryId, attempt } = payload as { deliveryId: number; attempt: number }
    const [d] = await db.sql<PendingDelivery>(
      `select e.id as endpoint_id, e.url, e.enabled, e.secret,
              case when e.secret_rotated_at > ?::timestamptz - make_interval(hours => ?) then e.previous_secret end as previous_secret,
              ev.id, ev.seq, ev.type, ev.livemode, ev.data, ev.created_at
         from event_deliveries d join events ev on ev.id = d.event_id left join webhook_endpoints e on e.id = d.endpoint_id
        where d.id = ? and d.status = 'pending'`,
      [services.now(), ROTATION_OVERLAP_HOURS, deliveryId],
    )
    if (!d) return
    if (!d.endpoint_id || !d.enabled || !d.url || !d.secret) {
      const reason = d.endpoint_id ? 'The endpoint was disabled before this attempt.' : 'The endpoint was deleted before this attempt.'
      await db.sql(`update event_deliveries set status = 'skipped', reason = ?, updated_at = ? where id = ?`, [
        reason,
        services.now(),
        deliveryId,
      ])
      return
    }
    let secrets: string[]
    try {
      secrets = [d.secret, ...(d.previous_secret ? [d.previous_secret] : [])].map((s) => services.secrets.open(s))
    } catch (e) {
      if (!(e instanceof SecretUnreadable)) throw e
      // Retrying cannot help until the secret is rotated: failed, with the reason, never left pending.
      const reason = `cannot sign: ${e.message}; rotate the endpoint's secret.`
      await record(services, deliveryId, attempt, { started: services.now(), statusCode: null, error: reason, durationMs: 0 }, null, null)
      return
    }
    const body = eventPayload(d)
    const sent = await postSigned(services, d.url, body, (timestamp) => ({
      'X-Service-Event': d.type,
      ...standardWebhookHeaders(d.id, timestamp, body, secrets),
    }))
    await record(
      services,
      deliveryId,
      attempt,
      sent,
      sent.error === null ? null : nextAttemptAt(services.config, attempt, services.now()),
      d.url,
    )
  }
}

async function record(services: Services, deliveryId: number, attempt: number, sent: SentAttempt, next: Date | null, url: string | null) {
  await services.db.tx(async (q) => {
    await recordAttempt(q, 'event_attempts', deliveryId, attempt, sent)
    await q.sql(
      `update event_deliveries set attempts = ?, status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
              url = coalesce(?, url), updated_at = ? where id = ?`,
      [attempt, deliveryStatus(sent, next), sent.statusCode, sent.error, next, url, services.now(), deliveryId],
    )
    if (next)
      await q.sql(
        `select graphile_worker.add_job(?, json_build_object('deliveryId', ?::bigint, 'attempt', ?::int), run_at => ?::timestamptz, max_attempts => 1)`,
        [DELIVER_EVENT_TASK, deliveryId, attempt + 1, next],
      )
  })
}
