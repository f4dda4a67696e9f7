// Signed callbacks (C8). A terminal job event records a delivery in the job's own transaction; a
// graphile-worker task makes each attempt, re-checking the address every time, and schedules the next
// one itself so that the backoff is ours and survives restarts. Delivery never touches the job or money.
// A live job's deliveries are signed with the account's live secret, a test key's job's with its test secret
// (never the live one), so a receiver cannot take a test event for a live one.
import { createHmac } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { ulid } from 'ulid'
import { WEBHOOK_SECRET_COLUMNS } from '../accounts/accounts.ts'
import { type KeyMode } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { JobView, jobView, type CallbackWarning } from '../jobs/view.ts'
import { FetchError, postPublic } from '../net/safe-fetch.ts'
import { SecretUnreadable, type SecretBox } from '../secrets.ts'
import { UUID } from '../validation.ts'
import type { JobEventName, JobEvents, Services } from '../services.ts'

export const DELIVER_TASK = 'deliver_webhook'

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

/**
 * The account's signing secrets as rows (mode, secret, previous, rotated_at) of the accounts row `a`, to join on a
 * job's mode: `cross join ${SECRETS_BY_MODE} where s.mode = j.mode`.
 */
const SECRETS_BY_MODE = `lateral (values ${Object.entries(WEBHOOK_SECRET_COLUMNS)
  .map(([mode, c]) => `('${mode}', a.${c.secret}, a.${c.previous}, a.${c.rotatedAt})`)
  .join(', ')}) as s (mode, secret, previous, rotated_at)`

/** How an account gets the secret of `mode` it lacks. */
const createSecret = (mode: KeyMode) =>
  `Create one in the dashboard (Webhooks), or the operator with: npm run admin -- webhook-secret <accountId>${mode === 'test' ? ' --mode test' : ''}.`

/** Why a delivery of a `mode` job was skipped: the account had no secret of that mode when the job ended. */
function noSecretReason(mode: KeyMode): string {
  return `The account had no ${mode} webhook signing secret when the job ended, so nothing was sent. ${createSecret(mode)}`
}

/**
 * What stands in the way of delivering a callback of a `mode` job of the account, said in its 202: a callback that
 * would be skipped or fail is never accepted without a word. Empty without a callbackUrl.
 */
export async function callbackWarnings(
  q: Query,
  box: SecretBox,
  caller: { accountId: string; mode: KeyMode },
  callbackUrl: string | null,
): Promise<CallbackWarning[]> {
  if (!callbackUrl) return []
  const [row] = await q.sql<{ secret: string | null }>(
    `select s.secret from accounts a cross join ${SECRETS_BY_MODE} where a.id = ? and s.mode = ?`,
    [caller.accountId, caller.mode],
  )
  if (!row?.secret) {
    const message = `The account has no ${caller.mode} webhook signing secret: the callback will be skipped unless one exists when the job ends. ${createSecret(caller.mode)}`
    return [{ code: 'webhook_secret_missing', message }]
  }
  try {
    box.open(row.secret)
    return []
  } catch (e) {
    if (!(e instanceof SecretUnreadable)) throw e
    return [
      {
        code: 'webhook_secret_unreadable',
        message: `The account's ${caller.mode} webhook signing secret cannot be opened with this server's keys (SECRET_ENCRYPTION_KEY), so the callback will fail; rotate the secret.`,
      },
    ]
  }
}

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
  mode: KeyMode
  webhook_secret: string | null
  previous_secret: string | null
}

export function deliverTask(services: Services) {
  const { db, config } = services
  return async (payload: unknown): Promise<void> => {
    const { deliveryId, attempt } = payload as { deliveryId: string; attempt: number }
    const [d] = await db.sql<PendingDelivery>(
      `select d.url, d.event, d.job_id, d.payload, j.request_id, j.mode, s.secret as webhook_secret,
              case when s.rotated_at > ?::timestamptz - make_interval(hours => ?) then s.previous end as previous_secret
         from webhook_deliveries d join jobs j on j.id = d.job_id join accounts a on a.id = d.account_id cross join ${SECRETS_BY_MODE}
        where d.id = ? and d.status = 'pending' and s.mode = j.mode`,
      [services.now(), ROTATION_OVERLAP_HOURS, deliveryId],
    )
    if (!d) return
    if (!d.webhook_secret) {
      await db.sql(`update webhook_deliveries set status = 'skipped', reason = ?, updated_at = ? where id = ?`, [
        noSecretReason(d.mode),
        services.now(),
        deliveryId,
      ])
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

/** GET /v1/jobs/{id}/deliveries (and the operator's); published as components.schemas.JobDeliveries. */
export const JobDeliveries = Type.Object(
  {
    deliveries: Type.Array(
      Type.Object(
        {
          deliveryId: Type.String(),
          event: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]),
          url: Type.String(),
          status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('skipped')]),
          reason: Type.Optional(Type.String({ description: 'when skipped: why nothing was sent' })),
          attempts: Type.Array(
            Type.Object(
              {
                attempt: Type.Integer({ minimum: 1 }),
                at: Type.String({ format: 'date-time' }),
                statusCode: Type.Union([Type.Integer(), Type.Null()]),
                error: Type.Union([Type.String(), Type.Null()]),
                durationMs: Type.Integer({ minimum: 0 }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type Delivery = Static<typeof JobDeliveries>['deliveries'][number]

/**
 * Every delivery of a job with its attempts, oldest first. `caller`: only a job of that account and key mode, as
 * GET /v1/jobs/{id} (anything else is the same 404); the operator names any job.
 */
export async function listAttempts(db: Query, jobId: string, caller?: { accountId: string; mode: KeyMode }): Promise<Delivery[]> {
  // A malformed id (a NUL byte included, which PostgreSQL refuses in text) is the same 404 as an unknown one.
  if (!UUID.test(jobId)) throw new ApiError('not_found', 'No such job.')
  const [job] = await db.sql(`select 1 from jobs where id = ? and (?::uuid is null or (account_id = ?::uuid and mode = ?))`, [
    jobId,
    caller?.accountId ?? null,
    caller?.accountId ?? null,
    caller?.mode ?? null,
  ])
  if (!job) throw new ApiError('not_found', 'No such job.')
  const rows = await db.sql<{
    id: string
    event: Delivery['event']
    url: string
    status: Delivery['status']
    reason: string | null
    attempts: Delivery['attempts']
  }>(
    `select d.id, d.event, d.url, d.status, d.reason,
            coalesce(json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'statusCode', a.status_code, 'error', a.error, 'durationMs', a.duration_ms)
                     order by a.attempt) filter (where a.id is not null), '[]') as attempts
       from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
      where d.job_id = ? group by d.id order by d.created_at`,
    [jobId],
  )
  return rows.map((d) => ({
    deliveryId: d.id,
    event: d.event,
    url: d.url,
    status: d.status,
    ...(d.reason ? { reason: d.reason } : {}),
    attempts: d.attempts.map((a) => ({ ...a, at: new Date(a.at).toISOString() })),
  }))
}
