// A job's own callback (C8): when a job with a callbackUrl ends, its delivery is recorded in the ending's
// transaction with the Job object as the payload; core/webhooks signs and posts it.
import { Type, type Static } from '@sinclair/typebox'
import { ulid } from 'ulid'
import type { Query } from '../db/database.ts'
import type { KeyMode } from '../http/caller.ts'
import type { JobEventName, JobEvents, Services } from '../services.ts'
import { DELIVER_TASK, noSecretReason, SECRETS_BY_MODE } from '../webhooks/webhooks.ts'
import { JobView, jobView } from './view.ts'

/** The body POSTed to callbackUrl (C8); published as components.schemas.WebhookPayload. */
export const WebhookPayload = Type.Object(
  {
    deliveryId: Type.String({ description: 'the same on every attempt (= webhook-id): deduplicate on it' }),
    event: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]),
    createdAt: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean({
      description: "false: a test key's job, signed with the account's test secret (which the live secret does not verify)",
    }),
    job: JobView,
  },
  { additionalProperties: false },
)

/** Subscribes to job.completed / job.failed (the seam of core/jobs): a group's deliveries in one read and one insert. */
export function webhookListener(services: Services): JobEvents {
  return (events, q) => recordDeliveries(services, q, events)
}

async function recordDeliveries(services: Services, q: Query, events: { event: JobEventName; jobId: string }[]) {
  const jobs = await q.sql<{ id: string; account_id: string; callback_url: string; mode: KeyMode; has_secret: boolean }>(
    `select j.*, s.secret is not null as has_secret from jobs j join accounts a on a.id = j.account_id cross join ${SECRETS_BY_MODE}
      where j.id = any(?::uuid[]) and j.callback_url is not null and s.mode = j.mode`,
    [events.map((e) => e.jobId)],
  )
  if (!jobs.length) return
  const byId = new Map(jobs.map((j) => [j.id, j]))
  const now = services.now()
  const rows = events.flatMap(({ event, jobId }) => {
    const job = byId.get(jobId)
    if (!job) return []
    const deliveryId = `dlv_${ulid()}`
    const body: Static<typeof WebhookPayload> = {
      deliveryId,
      event,
      createdAt: now.toISOString(),
      livemode: job.mode === 'live',
      job: jobView(job),
    }
    const skipped = job.has_secret ? null : noSecretReason(job.mode)
    return [{ deliveryId, job, event, payload: JSON.stringify(body), status: skipped ? 'skipped' : 'pending', reason: skipped }]
  })
  await q.sql(
    `with d as (
       insert into webhook_deliveries (id, job_id, account_id, event, url, payload, status, reason, created_at, updated_at)
       select id, job_id, account_id, event, url, payload, status, reason, ?, ?
         from unnest(?::text[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
         as v (id, job_id, account_id, event, url, payload, status, reason)
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
      rows.map((r) => r.reason),
      DELIVER_TASK,
    ],
  )
}
