// Signed callbacks (C8). A terminal job event records a delivery in the job's own transaction; a
// graphile-worker task makes each attempt, re-checking the address every time, and schedules the next
// one itself so that the backoff is ours and survives restarts. Delivery never touches the job or money.
import { createHmac } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { ulid } from 'ulid'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { JobView, jobView } from '../jobs/view.ts'
import { FetchError, postPublic } from '../net/safe-fetch.ts'
import { SecretUnreadable } from '../secrets.ts'
import type { JobEventName, JobEvents, Services } from '../services.ts'

export const DELIVER_TASK = 'deliver_webhook'

/** The body POSTed to callbackUrl (C8); published as components.schemas.WebhookPayload. */
export const WebhookPayload = Type.Object(
  {
    deliveryId: Type.String({ description: 'the same on every attempt (= webhook-id): deduplicate on it' }),
    event: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]),
    createdAt: Type.String({ format: 'date-time' }),
    job: JobView,
  },
  { additionalProperties: false },
)

/** X-Service-Signature (C8): hex HMAC-SHA256 of the body, keyed with the whole secret string. */
export function sign(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex')
}

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_HOURS = 24

/**
 * The Standard Webhooks headers: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed
 * with the base64-decoded part of the secret after `whsec_` (what the standardwebhooks libraries do with the
 * secret as given), one signature per secret, space-separated. Node's base64 decoder also reads the base64url
 * secrets made before this scheme, so they sign the same bytes.
 */
export function standardWebhookHeaders(id: string, timestamp: number, body: string, secrets: string[]): Record<string, string> {
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
    return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
  })
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') }
}

/** Subscribes to job.completed / job.failed (the seam of core/jobs): a group's deliveries in one read and one insert. */
export function webhookListener(services: Services): JobEvents {
  return (events, q) => recordDeliveries(services, q, events)
}

async function recordDeliveries(services: Services, q: Query, events: { event: JobEventName; jobId: string }[]) {
  const jobs = await q.sql<{ id: string; account_id: string; callback_url: string; has_secret: boolean }>(
    `select j.*, a.webhook_secret is not null as has_secret from jobs j join accounts a on a.id = j.account_id
      where j.id = any(?::uuid[]) and j.callback_url is not null`,
    [events.map((e) => e.jobId)],
  )
  if (!jobs.length) return
  const byId = new Map(jobs.map((j) => [j.id, j]))
  const now = services.now()
  const rows = events.flatMap(({ event, jobId }) => {
    const job = byId.get(jobId)
    if (!job) return []
    const deliveryId = `dlv_${ulid()}`
    const body: Static<typeof WebhookPayload> = { deliveryId, event, createdAt: now.toISOString(), job: jobView(job) }
    return [{ deliveryId, job, event, payload: JSON.stringify(body), status: job.has_secret ? 'pending' : 'skipped' }]
  })
  await q.sql(
    `with d as (
       insert into webhook_deliveries (id, job_id, account_id, event, url, payload, status, created_at, updated_at)
       select id, job_id, account_id, event, url, payload, status, ?, ? from unnest(?::text[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[])
         as v (id, job_id, account_id, event, url, payload, status)
       returning id, status
     )
     select graphile_worker.add_job(?, json_build_object('deliveryId', id, 'attempt', 1), max_attempts => 1) from d where status = 'pending'`,
    [
      now,
      now,
      rows.map((r) => r.deliveryId),
      rows.map((r) => r.job.id),
      rows.map((r) => r.job.account_id),
      rows.map((r) => r.event),
      rows.map((r) => r.job.callback_url),
      rows.map((r) => r.payload),
      rows.map((r) => r.status),
      DELIVER_TASK,
    ],
  )
}

async function schedule(q: Query, deliveryId: string, attempt: number, runAt: Date | null) {
  await q.sql(
    `select graphile_worker.add_job(?, json_build_object('deliveryId', ?::text, 'attempt', ?::int), run_at => ?::timestamptz, max_attempts => 1)`,
    [DELIVER_TASK, deliveryId, attempt, runAt],
  )
}

type PendingDelivery = {
  url: string
  event: string
  job_id: string
  payload: string
  request_id: string
  webhook_secret: string | null
  previous_secret: string | null
}

export function deliverTask(services: Services) {
  const { db, config } = services
  return async (payload: unknown): Promise<void> => {
    const { deliveryId, attempt } = payload as { deliveryId: string; attempt: number }
    const [d] = await db.sql<PendingDelivery>(
      `select d.url, d.event, d.job_id, d.payload, j.request_id, a.webhook_secret,
              case when a.webhook_secret_rotated_at > ?::timestamptz - make_interval(hours => ?) then a.previous_webhook_secret end as previous_secret
         from webhook_deliveries d join jobs j on j.id = d.job_id join accounts a on a.id = d.account_id
        where d.id = ? and d.status = 'pending'`,
      [services.now(), ROTATION_OVERLAP_HOURS, deliveryId],
    )
    if (!d) return
    if (!d.webhook_secret) {
      await db.sql(`update webhook_deliveries set status = 'skipped', updated_at = ? where id = ?`, [services.now(), deliveryId])
      return
    }
    let secret: string
    try {
      secret = services.secrets.open(d.webhook_secret)
    } catch (e) {
      if (!(e instanceof SecretUnreadable)) throw e
      // Retrying cannot help until the key is fixed: recorded as failed, with the reason, never left pending.
      await db.tx(async (q) => {
        const now = services.now()
        await q.sql(
          `insert into webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms) values (?, ?, ?, null, ?, 0)`,
          [deliveryId, attempt, now, `cannot sign: ${e.message}`],
        )
        await q.sql(`update webhook_deliveries set attempts = ?, status = 'failed', updated_at = ? where id = ?`, [
          attempt,
          now,
          deliveryId,
        ])
      })
      return
    }
    const secrets = [secret, ...(d.previous_secret ? [services.secrets.open(d.previous_secret)] : [])]
    const started = services.now()
    const startedMs = performance.now()
    let statusCode: number | null = null
    let error: string | null = null
    try {
      const res = await postPublic(d.url, {
        body: d.payload,
        headers: {
          'Content-Type': 'application/json',
          'X-Service-Event': d.event,
          'X-Service-Job-Id': d.job_id,
          'X-Service-Request-Id': d.request_id,
          'X-Service-Delivery-Id': deliveryId,
          'X-Service-Signature': sign(secret, d.payload),
          ...standardWebhookHeaders(deliveryId, Math.floor(started.getTime() / 1000), d.payload, secrets),
        },
        allowPrivate: config.callbacksAllowPrivate,
        ...(services.resolver ? { resolver: services.resolver } : {}),
        timeoutMs: config.webhookTimeoutMs,
      })
      statusCode = res.status
      if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`
    } catch (e) {
      error = e instanceof FetchError ? `${e.kind}: ${e.message}` : 'delivery failed'
    }
    const delivered = error === null
    const retries = config.webhookRetryDelays
    const next = delivered ? null : attempt <= retries.length ? attempt + 1 : null
    const durationMs = Math.round(performance.now() - startedMs)
    await db.tx(async (q) => {
      const now = services.now()
      await q.sql(`insert into webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms) values (?, ?, ?, ?, ?, ?)`, [
        deliveryId,
        attempt,
        started,
        statusCode,
        error,
        durationMs,
      ])
      await q.sql(`update webhook_deliveries set attempts = ?, status = ?, updated_at = ? where id = ?`, [
        attempt,
        delivered ? 'delivered' : next ? 'pending' : 'failed',
        now,
        deliveryId,
      ])
      if (next) {
        const base = retries[attempt - 1]! * 1000
        const jittered = base * (0.8 + Math.random() * 0.4)
        await schedule(q, deliveryId, next, new Date(now.getTime() + jittered))
      }
    })
  }
}

export async function listAttempts(db: Query, jobId: string) {
  const [job] = await db.sql(`select 1 from jobs where id = ?`, [jobId])
  if (!job) throw new ApiError('not_found', 'No such job.')
  const rows = await db.sql(
    `select d.id, d.event, d.url, d.status,
            coalesce(json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'statusCode', a.status_code, 'error', a.error, 'durationMs', a.duration_ms)
                     order by a.attempt) filter (where a.id is not null), '[]') as attempts
       from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
      where d.job_id::text = ? group by d.id order by d.created_at`,
    [jobId],
  )
  return rows.map((d) => ({
    deliveryId: d.id as string,
    event: d.event as string,
    url: d.url as string,
    status: d.status as string,
    attempts: (
      d.attempts as Array<{ attempt: number; at: string; statusCode: number | null; error: string | null; durationMs: number }>
    ).map((a) => ({
      ...a,
      at: new Date(a.at).toISOString(),
    })),
  }))
}
