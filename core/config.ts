// Configuration (contract C15): environment first, then config/defaults.json.
import { readFileSync } from 'node:fs'

/** A configuration this process cannot run with; the entry point prints its message as one line. */
export class BootRefusal extends Error {}

export interface PausedEntry {
  since: string
  reason: string
}

export interface AiConfig {
  apiKey?: string
  baseURL?: string
  wireApi: 'responses' | 'chat'
  /** Structured outputs sent with `strict: true` (AI_STRICT_SCHEMAS=false for servers that refuse it). */
  strictSchemas?: boolean
  models: { text: string; image: string; speech: string; transcription: string; embedding?: string }
}

export interface BillingConfig {
  /** STRIPE_SECRET_KEY; unset: purchases are made by the operator (admin API). */
  secretKey?: string
  webhookSecret?: string
  /** STRIPE_API_URL: where the stripe client connects (tests point it at a fake on loopback). */
  api?: { host: string; port: number; protocol: 'http' | 'https' }
}

export interface Config {
  port: number
  databaseUrl?: string
  redisUrl?: string
  adminToken?: string
  maintenanceSecret?: string
  secretKey?: string
  /** SECRET_ENCRYPTION_KEY_PREVIOUS: still opens secrets sealed before a key rotation. */
  previousSecretKey?: string
  /** TRUST_PROXY=true: the client address comes from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean
  /** Node's HTTP server limits (a trickled request is cut off at requestTimeoutMs with 408). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number }
  /** Failed key lookups per client and minute before 429 (the database is not asked meanwhile). */
  authFailuresPerMinute: number
  jobLeaseSeconds: number
  callbacksAllowPrivate: boolean
  webhookRetryDelays: number[]
  webhookTimeoutMs: number
  bodyLimitBytes: number
  syncModelTimeoutMs: number
  asyncModelTimeoutMs: number
  ai: AiConfig
  billing: BillingConfig
  /** SMTP_URL for sign-in links and account emails; unset: they are printed in the log (development). */
  smtpUrl?: string
  mailFrom: string
  /** DASHBOARD_URL: the public origin of links in emails and Stripe redirects; unset: the request's own. */
  dashboardUrl?: string
  /** Per endpoint: paused with a reason, or `false` to serve an endpoint its manifest ships paused (C10). */
  paused: Record<string, PausedEntry | false>
  rateLimits: Record<string, number>
  logLevel: string
  logPretty: boolean
  metricsToken?: string
  /** MIGRATE_ON_BOOT=false: the process waits for migrations applied by `--migrate` instead of applying them. */
  migrateOnBoot: boolean
  /** MAINTENANCE_SCHEDULE: the workers' cron for the maintenance pass; null (`off`) when something else runs it. */
  maintenanceSchedule: string | null
}

const defaults = JSON.parse(readFileSync(new URL('../config/defaults.json', import.meta.url), 'utf8')) as Config

function json<T>(name: string, raw: string | undefined): T | undefined {
  if (raw === undefined || raw === '') return undefined
  try {
    return JSON.parse(raw) as T
  } catch {
    throw new BootRefusal(`${name} must be JSON`)
  }
}

function int(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0) throw new BootRefusal(`${name} must be a whole number, got "${raw}"`)
  return n
}

function stripeApi(raw: string | undefined): BillingConfig['api'] {
  if (!raw) return undefined
  const u = new URL(raw)
  const protocol = u.protocol === 'http:' ? 'http' : 'https'
  return { host: u.hostname, port: Number(u.port || (protocol === 'http' ? 80 : 443)), protocol }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const wire = env.AI_WIRE_API ?? defaults.ai.wireApi
  if (wire !== 'responses' && wire !== 'chat') throw new BootRefusal(`AI_WIRE_API must be "responses" or "chat", got "${wire}"`)
  const delays = env.WEBHOOK_RETRY_DELAYS?.split(',').map((s) => int('WEBHOOK_RETRY_DELAYS', s.trim()) ?? 0)
  return {
    ...defaults,
    port: int('PORT', env.PORT) ?? defaults.port,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    maintenanceSecret: env.MAINTENANCE_SECRET || undefined,
    secretKey: env.SECRET_ENCRYPTION_KEY || undefined,
    previousSecretKey: env.SECRET_ENCRYPTION_KEY_PREVIOUS || undefined,
    trustProxy: env.TRUST_PROXY === 'true',
    http: {
      headersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', env.HTTP_HEADERS_TIMEOUT_MS) ?? defaults.http.headersTimeoutMs,
      requestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', env.HTTP_REQUEST_TIMEOUT_MS) ?? defaults.http.requestTimeoutMs,
      keepAliveTimeoutMs: int('HTTP_KEEP_ALIVE_TIMEOUT_MS', env.HTTP_KEEP_ALIVE_TIMEOUT_MS) ?? defaults.http.keepAliveTimeoutMs,
    },
    authFailuresPerMinute: int('AUTH_FAILURES_PER_MINUTE', env.AUTH_FAILURES_PER_MINUTE) ?? defaults.authFailuresPerMinute,
    jobLeaseSeconds: int('JOB_LEASE_SECONDS', env.JOB_LEASE_SECONDS) ?? defaults.jobLeaseSeconds,
    callbacksAllowPrivate: env.CALLBACKS_ALLOW_PRIVATE === 'true',
    webhookRetryDelays: delays ?? defaults.webhookRetryDelays,
    ai: {
      apiKey: env.OPENAI_API_KEY || undefined,
      baseURL: env.OPENAI_BASE_URL || undefined,
      wireApi: wire,
      strictSchemas: env.AI_STRICT_SCHEMAS !== 'false',
      models: {
        text: env.AI_MODEL || defaults.ai.models.text,
        image: env.AI_IMAGE_MODEL || defaults.ai.models.image,
        speech: env.AI_SPEECH_MODEL || defaults.ai.models.speech,
        transcription: env.AI_TRANSCRIPTION_MODEL || defaults.ai.models.transcription,
        // Embeddings are opt-in: without them memory search uses full-text ranking.
        embedding: env.AI_EMBEDDING_MODEL || undefined,
      },
    },
    billing: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      api: stripeApi(env.STRIPE_API_URL),
    },
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || defaults.mailFrom,
    dashboardUrl: env.DASHBOARD_URL ? new URL(env.DASHBOARD_URL).origin : undefined,
    // PAUSED_ENDPOINTS replaces the whole list (C10): '{}' lifts the pauses of this file, but an endpoint whose
    // manifest ships paused (transcribe) stays paused until its entry is false: '{"transcribe": false}'.
    paused: json<Config['paused']>('PAUSED_ENDPOINTS', env.PAUSED_ENDPOINTS) ?? defaults.paused,
    rateLimits: { ...defaults.rateLimits, ...json<Record<string, number>>('RATE_LIMITS', env.RATE_LIMITS) },
    logLevel: env.LOG_LEVEL || defaults.logLevel,
    logPretty: env.LOG_PRETTY === 'true',
    metricsToken: env.METRICS_TOKEN || undefined,
    migrateOnBoot: env.MIGRATE_ON_BOOT !== 'false',
    maintenanceSchedule: env.MAINTENANCE_SCHEDULE === 'off' ? null : env.MAINTENANCE_SCHEDULE || '*/5 * * * *',
  }
}
