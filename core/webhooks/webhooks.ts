// Signed callbacks (C8). A terminal job event records a delivery in the job's own transaction (core/jobs/callbacks.ts); a
// graphile-worker task makes each attempt, re-checking the address every time, and schedules the next
// one itself so that the backoff is ours and survives restarts. Delivery never touches the job or money.
// A live job's deliveries are signed with the account's live secret, a test key's job's with its test secret
// (never the live one), so a receiver cannot take a test event for a live one.
import { ulid } from 'ulid'
import { createHmac } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { type KeyMode } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { CallbackWarning } from '../jobs/view.ts'
import { AddressRefused, resolvePublicTarget } from '../net/address-guard.ts'
import { FetchError, postPublic } from '../net/safe-fetch.ts'
import { SecretUnreadable, type SecretBox } from '../secrets.ts'
import { UUID } from '../validation.ts'
import type { Services } from '../services.ts'

export const DELIVER_TASK = 'deliver_webhook'

/** The columns of an account's signing secret of each mode: a test key's deliveries never use the live one. */
export const WEBHOOK_SECRET_COLUMNS = {
  live: { secret: 'webhook_secret', previous: 'previous_webhook_secret', rotatedAt: 'webhook_secret_rotated_at' },
  test: { secret: 'test_webhook_secret', previous: 'previous_test_webhook_secret', rotatedAt: 'test_webhook_secret_rotated_at' },
} as const satisfies Record<KeyMode, { secret: string; previous: string; rotatedAt: string }>

/**
 * The account's signing secrets as rows (mode, secret, previous, rotated_at) of the accounts row `a`, to join on a
 * job's mode: `cross join ${SECRETS_BY_MODE} where s.mode = j.mode`.
 */
export const SECRETS_BY_MODE = `lateral (values ${Object.entries(WEBHOOK_SECRET_COLUMNS)
  .map(([mode, c]) => `('${mode}', a.${c.secret}, a.${c.previous}, a.${c.rotatedAt})`)
  .join(', ')}) as s (mode, secret, previous, rotated_at)`

/** How an account gets the secret of `mode` it lacks. */
const createSecret = (mode: KeyMode) =>
  `Create one in the dashboard (Webhooks), or the operator with: npm run admin -- webhook-secret <accountId>${mode === 'test' ? ' --mode test' : ''}.`

/** Why a delivery of a `mode` job was skipped: the account had no secret of that mode when the job ended. */
export function noSecretReason(mode: KeyMode): string {
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

/** C8's rule for a URL the service will POST to (a callbackUrl, a webhook endpoint): https and public. */
export async function checkCallbackUrl(url: string, services: Services, field = 'callbackUrl'): Promise<void> {
  try {
    await resolvePublicTarget(new URL(url), {
      allowPrivate: services.config.callbacksAllowPrivate,
      resolver: services.resolver,
      schemes: ['https:'],
    })
  } catch (e) {
    if (!(e instanceof AddressRefused)) throw e
    // One answer for "does not resolve" and "resolves to a private address", so callers cannot probe internal names.
    const why = e.reason === 'address' || e.reason === 'unresolvable' ? 'the host is not a reachable public address' : e.message
    throw new ApiError(
      'invalid_callback_url',
      `${field} must be a public https URL: ${why}. (A server run for development can allow private addresses and http with CALLBACKS_ALLOW_PRIVATE=true.)`,
      [{ path: `/${field}`, message: why }],
    )
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

/**
 * Records one delivery of a batch's callback in the caller's transaction (core/batches: when its last item ended),
 * delivered, retried and signed with the secret of the batch's mode as a job's are. `payload` gets the delivery id.
 */
export async function recordBatchDelivery(
  q: Query,
  now: Date,
  d: { batchId: string; accountId: string; mode: KeyMode; url: string; event: string; payload: (deliveryId: string) => string },
): Promise<void> {
  const [secret] = await q.sql<{ secret: string | null }>(
    `select s.secret from accounts a cross join ${SECRETS_BY_MODE} where a.id = ? and s.mode = ?`,
    [d.accountId, d.mode],
  )
  const deliveryId = `dlv_${ulid()}`
  const skipped = secret?.secret ? null : noSecretReason(d.mode)
  await q.sql(
    `insert into webhook_deliveries (id, batch_id, account_id, event, url, payload, status, reason, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [deliveryId, d.batchId, d.accountId, d.event, d.url, d.payload(deliveryId), skipped ? 'skipped' : 'pending', skipped, now, now],
  )
  if (!skipped) await schedule(q, deliveryId, 1, null)
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
  /** null: a batch's callback */
  job_id: string | null
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
      `select d.url, d.event, d.job_id, d.payload, coalesce(j.request_id, b.request_id) as request_id,
              coalesce(j.mode, b.mode) as mode, s.secret as webhook_secret,
              case when s.rotated_at > ?::timestamptz - make_interval(hours => ?) then s.previous end as previous_secret
         from webhook_deliveries d left join jobs j on j.id = d.job_id left join batches b on b.id = d.batch_id
         join accounts a on a.id = d.account_id cross join ${SECRETS_BY_MODE}
        where d.id = ? and d.status = 'pending' and s.mode = coalesce(j.mode, b.mode)`,
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
    const sent = await postSigned(services, d.url, d.payload, (timestamp) => ({
      'X-Service-Event': d.event,
      ...(d.job_id ? { 'X-Service-Job-Id': d.job_id } : {}), // a batch's callback names its batch in the body
      'X-Service-Request-Id': d.request_id,
      'X-Service-Delivery-Id': deliveryId,
      'X-Service-Signature': sign(secret, d.payload),
      ...standardWebhookHeaders(deliveryId, timestamp, d.payload, secrets),
    }))
    const delivered = sent.error === null
    await db.tx(async (q) => {
      const now = services.now()
      const next = delivered ? null : nextAttemptAt(config, attempt, now)
      await recordAttempt(q, 'webhook_attempts', deliveryId, attempt, sent)
      await q.sql(`update webhook_deliveries set attempts = ?, status = ?, updated_at = ? where id = ?`, [
        attempt,
        deliveryStatus(sent, next),
        now,
        deliveryId,
      ])
      if (next) await schedule(q, deliveryId, attempt + 1, next)
    })
  }
}

/** What one POST of a delivery did: `error` null means a 2xx (delivered). */
export interface SentAttempt {
  started: Date
  statusCode: number | null
  error: string | null
  durationMs: number
}

/** One attempt's row, in the attempts table of job callbacks or of account events (the same columns). */
export async function recordAttempt(
  q: Query,
  table: 'webhook_attempts' | 'event_attempts',
  deliveryId: string | number,
  attempt: number,
  sent: SentAttempt,
): Promise<void> {
  await q.sql(`insert into ${table} (delivery_id, attempt, at, status_code, error, duration_ms) values (?, ?, ?, ?, ?, ?)`, [
    deliveryId,
    attempt,
    sent.started,
    sent.statusCode,
    sent.error,
    sent.durationMs,
  ])
}

/** A delivery's status after an attempt: delivered on a 2xx, else pending while a retry is scheduled, else failed. */
export const deliveryStatus = (sent: SentAttempt, next: Date | null): 'delivered' | 'pending' | 'failed' =>
  sent.error === null ? 'delivered' : next ? 'pending' : 'failed'

/** One attempt as the API lists it. */
export const AttemptView = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    at: Type.String({ format: 'date-time' }),
    statusCode: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    durationMs: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
)

/**
 * One POST of a signed JSON body under C8's rules: the address guard on the address actually connected to, no
 * redirects, the webhook timeout. `headers` gets the attempt's Unix time (webhook-timestamp) to sign with.
 */
export async function postSigned(
  services: Services,
  url: string,
  body: string,
  headers: (timestamp: number) => Record<string, string>,
): Promise<SentAttempt> {
  const started = services.now()
  const startedMs = performance.now()
  let statusCode: number | null = null
  let error: string | null = null
  try {
    const res = await postPublic(url, {
      body,
      headers: { 'Content-Type': 'application/json', ...headers(Math.floor(started.getTime() / 1000)) },
      allowPrivate: services.config.callbacksAllowPrivate,
      ...(services.resolver ? { resolver: services.resolver } : {}),
      timeoutMs: services.config.webhookTimeoutMs,
    })
    statusCode = res.status
    if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`
  } catch (e) {
    error = e instanceof FetchError ? `${e.kind}: ${e.message}` : 'delivery failed'
  }
  return { started, statusCode, error, durationMs: Math.round(performance.now() - startedMs) }
}

/** When the attempt after failed attempt `attempt` runs (C8's backoff, with jitter), or null: that was the last. */
export function nextAttemptAt(config: Services['config'], attempt: number, now: Date): Date | null {
  const retries = config.webhookRetryDelays
  if (attempt > retries.length) return null
  const base = retries[attempt - 1]! * 1000
  return new Date(now.getTime() + base * (0.8 + Math.random() * 0.4))
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
          attempts: Type.Array(AttemptView),
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
