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
  /** Capability name → model name (AI_ROUTES over config/defaults.json); capabilities not named keep their role's model. */
  routes?: Record<string, string>
  /** The providers a text call moves to, in order, when the one before fails (429, 5xx, connection, timeout, context length). */
  fallbacks?: FallbackProvider[]
  /** The time one attempt may take before the call moves to the next provider (the last one gets the call's deadline). */
  attemptTimeoutMs?: number
  /** USD per million tokens by model name: config/prices.json with AI_PRICES over it. */
  prices?: Record<string, ModelPrice>
  /** Long inputs (issue 27, core/models/chunks.ts); unset in hand-made configs: the defaults of config/defaults.json. */
  context?: ContextConfig
}

export interface ContextConfig {
  /** AI_CONTEXT_TOKENS: the largest prompt of one model request, output reserve included (capped by the model's window). */
  tokens: number
  /** AI_OUTPUT_RESERVE_TOKENS: tokens of each request kept for the answer. */
  outputReserveTokens: number
  /** AI_CHUNK_CONCURRENCY: parts of one long call sent at once. */
  concurrency: number
  /** AI_COST_GUARD_FACTOR: a call may cost the provider up to its credits' value times this. */
  costGuardFactor: number
  /** AI_UNPAID_USD_PER_HOUR: provider USD an account's failed (free) calls may cost per hour and process (core/models/unpaid.ts). */
  unpaidUsdPerHour: number
  /** Context window by model name (config/models.json). */
  windows: Record<string, number>
}

export interface FallbackProvider {
  /** The provider's label in metrics, logs and the cost report. */
  name: string
  baseURL?: string
  apiKey?: string
  /** In config/: the environment variable holding the key (keys never live in the file). */
  apiKeyEnv?: string
  wireApi?: 'responses' | 'chat'
  /** The text model asked there; unset: the model the route chose at the primary. */
  model?: string
}

export interface ModelPrice {
  inputPerMTok: number
  outputPerMTok: number
  /** Cached input tokens; unset: priced as input. */
  cachedInputPerMTok?: number
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
  /**
   * TRUST_PROXY_HOPS: the proxies in front of the API that each append the address they saw to X-Forwarded-For.
   * The client address is the entry this many places from the right; 0: the connection's own address.
   */
  proxyHops: number
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
  /** MAIL_TO_LOG: `true` allows printing emails (live sign-in links) in the log without SMTP_URL; unset: only
   * with the embedded database (development); the API refuses to start otherwise (core/mail.ts). */
  mailToLog?: boolean
  mailFrom: string
  /** DASHBOARD_URL: the public origin of links in emails and Stripe redirects; unset: the request's own. */
  dashboardUrl?: string
  /** Per endpoint: paused with a reason, or `false` to serve an endpoint its manifest ships paused (C10). */
  paused: Record<string, PausedEntry | false>
  rateLimits: Record<string, number>
  logLevel: string
  logPretty: boolean
  metricsToken?: string
  /** SIGNUP_CREDITS: trial credits of an account opened by a dashboard sign-up (0: none, the production default). */
  signupCredits: number
  /** REQUEST_LOG_RETENTION_DAYS: how long GET /v1/requests keeps a call; maintenance prunes older rows. */
  requestLogRetentionDays: number
  /** The result cache (C20, core/cache/): RESULT_CACHE_PRICE_PERCENT of the price for a hit, kept RESULT_CACHE_TTL_HOURS. */
  resultCache: { pricePercent: number; ttlHours: number }
  /** USAGE_EVENTS_RETENTION_DAYS: how long usage events are kept (the ledger is kept for good). */
  usageEventsRetentionDays: number
  /** MODEL_REQUESTS_RETENTION_DAYS: how long the record of each provider request is kept. */
  modelRequestsRetentionDays: number
  /** AUDIT_LOG_RETENTION_DAYS: how long audit entries are kept; never under 400 days. */
  auditLogRetentionDays: number
  /** EVENTS_RETENTION_DAYS: how long account events, their deliveries and attempts are kept. */
  eventsRetentionDays: number
  documents: DocumentLimits
  /** MIGRATE_ON_BOOT=false: the process waits for migrations applied by `--migrate` instead of applying them. */
  migrateOnBoot: boolean
  /** CREDIT_LEASE=on: a busy key's live calls charge against a block of credits its process leased (core/wallet/lease.ts). */
  creditLease: boolean
  /** CREDIT_LEASE_BUSY_CALLS: a key's calls through one process within a second that make the process lease for it. */
  creditLeaseBusyCalls: number
  /** CREDIT_LEASE_MIN_CALLS: a block covers at least this many calls and at most 1/this of the account's available credits. */
  creditLeaseMinCalls: number
  /** MAINTENANCE_SCHEDULE: the workers' cron for the maintenance pass; null (`off`) when something else runs it. */
  maintenanceSchedule: string | null
  worker: WorkerSettings
  batches: BatchSettings
}

/** Batches (core/batches/): their price and their share of the workers. */
export interface BatchSettings {
  /** BATCH_DISCOUNT_PERCENT: how much less an item of window `24h` costs (0–99). */
  discountPercent: number
  /** BATCH_ACCOUNT_CONCURRENCY: one account's batch items handed to the workers at once. */
  accountConcurrency: number
  /** BATCH_CONCURRENCY: all accounts' batch items handed to the workers at once. */
  concurrency: number
  /** BATCH_ITEMS_PER_SECOND: the pace of the whole lane, all accounts' items started per second (above 0). */
  itemsPerSecond: number
}

/** A worker process's jobs and liveness (core/worker.ts, core/jobs/liveness.ts; docs/deploy.md). */
export interface WorkerSettings {
  /** Jobs one worker process runs at once (WORKER_CONCURRENCY). */
  concurrency: number
  /** Jobs it fetches ahead of its free slots (WORKER_PREFETCH; 0: each slot fetches its own). */
  prefetch: number
  /** How often it heartbeats and looks for dead workers (WORKER_HEARTBEAT_SECONDS). */
  heartbeatSeconds: number
  /** Without a heartbeat for this long it is dead and its jobs go back to the queue (WORKER_DEAD_AFTER_SECONDS). */
  deadAfterSeconds: number
}

/** Bounds on decoding one untrusted document (core/documents/sandbox.ts); README "Configuration" lists them. */
export interface DocumentLimits {
  /** Decoder processes per server process (DOCUMENT_WORKERS). */
  workers: number
  /** Documents waiting for a decoder before a sync call gets 503 (DOCUMENT_QUEUE); jobs wait. */
  queue: number
  /** Resident memory of one decoder process, MiB (DOCUMENT_MEMORY_MIB). */
  memoryMiB: number
  /** Wall-clock time of one document in a decoder, ms (DOCUMENT_TIMEOUT_MS). */
  timeoutMs: number
  /** Bytes all of a document's compressed streams may inflate to (DOCUMENT_MAX_DECOMPRESSED_BYTES). */
  maxDecompressedBytes: number
  maxPages: number
  /** Indirect objects, counting those packed in object streams. */
  maxObjects: number
  maxCharacters: number
  /** Arrays and dictionaries inside one another. */
  maxNesting: number
  maxImagePixels: number
  /**
   * Decoder time per account and hour for work no call pays for: dry runs and test keys as they read, refused
   * calls after (DOCUMENT_UNPAID_SECONDS_PER_HOUR).
   */
  unpaidSecondsPerHour: number
}

const defaults = JSON.parse(readFileSync(new URL('../config/defaults.json', import.meta.url), 'utf8')) as Config
/** The built-in price table: `{source, date, models: {name: ModelPrice}}`. */
const priceTable = JSON.parse(readFileSync(new URL('../config/prices.json', import.meta.url), 'utf8')) as {
  models: Record<string, ModelPrice>
}

/** The context windows of known models: `{source, date, models: {name: {contextWindow}}}`. */
const modelTable = JSON.parse(readFileSync(new URL('../config/models.json', import.meta.url), 'utf8')) as {
  models: Record<string, { contextWindow: number }>
}

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

/** The audit log is kept 400 days at least (its table refuses an earlier deletion): a shorter setting refuses boot. */
function auditRetention(raw: string | undefined): number {
  const days = int('AUDIT_LOG_RETENTION_DAYS', raw) ?? defaults.auditLogRetentionDays
  if (days < defaults.auditLogRetentionDays)
    throw new BootRefusal(`AUDIT_LOG_RETENTION_DAYS must be at least ${defaults.auditLogRetentionDays}, got ${days}`)
  return days
}

function positive(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0) throw new BootRefusal(`${name} must be a number above 0, got "${raw}"`)
  return n
}

function atLeastOne(name: string, raw: string | undefined): number | undefined {
  const n = int(name, raw)
  if (n === 0) throw new BootRefusal(`${name} must be a whole number of 1 or more, got "${raw}"`)
  return n
}

function onOff(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'off') return false
  if (raw === 'on') return true
  throw new BootRefusal(`${name} must be on or off, got "${raw}"`)
}

/**
 * TRUST_PROXY_HOPS, or the older TRUST_PROXY=true for one hop. Only the entries the trusted proxies appended are
 * read: what a client writes in X-Forwarded-For itself stays to their left, so it can neither pose as another
 * client nor spread its guesses over made-up addresses.
 */
function proxyHops(env: NodeJS.ProcessEnv): number {
  const legacy = env.TRUST_PROXY || undefined
  if (legacy !== undefined && legacy !== 'true' && legacy !== 'false')
    throw new BootRefusal(
      `TRUST_PROXY must be true or false, got "${legacy}"; better, set TRUST_PROXY_HOPS to the number of proxies in front`,
    )
  const raw = env.TRUST_PROXY_HOPS || undefined
  if (raw === undefined) return legacy === 'true' ? 1 : 0
  if (!/^\d{1,2}$/.test(raw))
    throw new BootRefusal(
      `TRUST_PROXY_HOPS must be the number of proxies in front of the API that append to X-Forwarded-For (0: none, 1: one load balancer), got "${raw}"`,
    )
  const hops = Number(raw)
  if (legacy !== undefined && (legacy === 'true') !== hops > 0)
    throw new BootRefusal(`TRUST_PROXY=${legacy} contradicts TRUST_PROXY_HOPS=${hops}: remove TRUST_PROXY, TRUST_PROXY_HOPS alone says it`)
  return hops
}

export function contextConfig(env: NodeJS.ProcessEnv): ContextConfig {
  const d = defaults.ai.context!
  const c: ContextConfig = {
    tokens: int('AI_CONTEXT_TOKENS', env.AI_CONTEXT_TOKENS) ?? d.tokens,
    outputReserveTokens: int('AI_OUTPUT_RESERVE_TOKENS', env.AI_OUTPUT_RESERVE_TOKENS) ?? d.outputReserveTokens,
    concurrency: int('AI_CHUNK_CONCURRENCY', env.AI_CHUNK_CONCURRENCY) ?? d.concurrency,
    costGuardFactor: positive('AI_COST_GUARD_FACTOR', env.AI_COST_GUARD_FACTOR) ?? d.costGuardFactor,
    unpaidUsdPerHour: positive('AI_UNPAID_USD_PER_HOUR', env.AI_UNPAID_USD_PER_HOUR) ?? d.unpaidUsdPerHour,
    windows: Object.fromEntries(Object.entries(modelTable.models).map(([m, w]) => [m, w.contextWindow])),
  }
  if (c.concurrency < 1) throw new BootRefusal('AI_CHUNK_CONCURRENCY must be at least 1')
  if (c.tokens < 2 * c.outputReserveTokens)
    throw new BootRefusal('AI_CONTEXT_TOKENS must be at least twice AI_OUTPUT_RESERVE_TOKENS (room for the input and the answer)')
  return c
}

function stripeApi(raw: string | undefined): BillingConfig['api'] {
  if (!raw) return undefined
  const u = new URL(raw)
  const protocol = u.protocol === 'http:' ? 'http' : 'https'
  return { host: u.hostname, port: Number(u.port || (protocol === 'http' ? 80 : 443)), protocol }
}

function wireApi(name: string, raw: string | undefined, fallback: 'responses' | 'chat'): 'responses' | 'chat' {
  const wire = raw || fallback
  if (wire !== 'responses' && wire !== 'chat') throw new BootRefusal(`${name} must be "responses" or "chat", got "${wire}"`)
  return wire
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function routes(raw: string | undefined): Record<string, string> {
  const parsed = json<unknown>('AI_ROUTES', raw) ?? {}
  if (!isRecord(parsed) || Object.values(parsed).some((m) => typeof m !== 'string' || !m))
    throw new BootRefusal('AI_ROUTES must be a JSON object of capability name → model name')
  return { ...defaults.ai.routes, ...(parsed as Record<string, string>) }
}

function prices(raw: string | undefined): Record<string, ModelPrice> {
  const parsed = json<unknown>('AI_PRICES', raw) ?? {}
  const price = (p: unknown) =>
    isRecord(p) &&
    ['inputPerMTok', 'outputPerMTok', 'cachedInputPerMTok'].every((k) => p[k] === undefined || (typeof p[k] === 'number' && p[k] >= 0)) &&
    p.inputPerMTok !== undefined &&
    p.outputPerMTok !== undefined
  if (!isRecord(parsed) || !Object.values(parsed).every(price))
    throw new BootRefusal('AI_PRICES must be a JSON object of model → {"inputPerMTok": n, "outputPerMTok": n} (USD per million tokens)')
  return { ...priceTable.models, ...(parsed as Record<string, ModelPrice>) }
}

/** AI_FALLBACK_BASE_URL first, then the providers of config/defaults.json, their keys read from their apiKeyEnv. */
function fallbacks(env: NodeJS.ProcessEnv, wire: 'responses' | 'chat'): FallbackProvider[] {
  const fromEnv: FallbackProvider[] = env.AI_FALLBACK_BASE_URL
    ? [
        {
          name: 'fallback',
          baseURL: env.AI_FALLBACK_BASE_URL,
          ...(env.AI_FALLBACK_API_KEY ? { apiKey: env.AI_FALLBACK_API_KEY } : {}),
          wireApi: wireApi('AI_FALLBACK_WIRE_API', env.AI_FALLBACK_WIRE_API, wire),
          ...(env.AI_FALLBACK_MODEL ? { model: env.AI_FALLBACK_MODEL } : {}),
        },
      ]
    : []
  const fromFile = (defaults.ai.fallbacks ?? []).map((f) => ({
    ...f,
    ...(f.apiKeyEnv && env[f.apiKeyEnv] ? { apiKey: env[f.apiKeyEnv] } : {}),
    wireApi: f.wireApi ?? wire,
  }))
  const all = [...fromEnv, ...fromFile]
  const names = new Set(['primary', ...all.map((f) => f.name)])
  if (names.size !== all.length + 1) throw new BootRefusal('Each fallback provider needs its own name (and not "primary")')
  return all
}

/** The public origin (DASHBOARD_URL, never the request's Host): links in emails, redirects, what MCP hosts are told. */
export const publicOrigin = (config: Pick<Config, 'dashboardUrl' | 'port'>): string =>
  config.dashboardUrl ?? `http://localhost:${config.port}`

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const wire = wireApi('AI_WIRE_API', env.AI_WIRE_API, defaults.ai.wireApi)
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
    proxyHops: proxyHops(env),
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
      routes: routes(env.AI_ROUTES),
      fallbacks: fallbacks(env, wire),
      attemptTimeoutMs: int('AI_ATTEMPT_TIMEOUT_MS', env.AI_ATTEMPT_TIMEOUT_MS) ?? defaults.ai.attemptTimeoutMs!,
      prices: prices(env.AI_PRICES),
      context: contextConfig(env),
    },
    billing: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      api: stripeApi(env.STRIPE_API_URL),
    },
    smtpUrl: env.SMTP_URL || undefined,
    mailToLog: env.MAIL_TO_LOG ? env.MAIL_TO_LOG === 'true' : undefined,
    mailFrom: env.MAIL_FROM || defaults.mailFrom,
    dashboardUrl: env.DASHBOARD_URL ? new URL(env.DASHBOARD_URL).origin : undefined,
    // PAUSED_ENDPOINTS replaces the whole list (C10): '{}' lifts the pauses of this file, but an endpoint whose
    // manifest ships paused (transcribe) stays paused until its entry is false: '{"transcribe": false}'.
    paused: json<Config['paused']>('PAUSED_ENDPOINTS', env.PAUSED_ENDPOINTS) ?? defaults.paused,
    rateLimits: { ...defaults.rateLimits, ...json<Record<string, number>>('RATE_LIMITS', env.RATE_LIMITS) },
    logLevel: env.LOG_LEVEL || defaults.logLevel,
    logPretty: env.LOG_PRETTY === 'true',
    metricsToken: env.METRICS_TOKEN || undefined,
    signupCredits: int('SIGNUP_CREDITS', env.SIGNUP_CREDITS) ?? defaults.signupCredits,
    requestLogRetentionDays: int('REQUEST_LOG_RETENTION_DAYS', env.REQUEST_LOG_RETENTION_DAYS) ?? defaults.requestLogRetentionDays,
    resultCache: resultCacheSettings(env),
    usageEventsRetentionDays: int('USAGE_EVENTS_RETENTION_DAYS', env.USAGE_EVENTS_RETENTION_DAYS) ?? defaults.usageEventsRetentionDays,
    modelRequestsRetentionDays:
      int('MODEL_REQUESTS_RETENTION_DAYS', env.MODEL_REQUESTS_RETENTION_DAYS) ?? defaults.modelRequestsRetentionDays,
    auditLogRetentionDays: auditRetention(env.AUDIT_LOG_RETENTION_DAYS),
    eventsRetentionDays: int('EVENTS_RETENTION_DAYS', env.EVENTS_RETENTION_DAYS) ?? defaults.eventsRetentionDays,
    documents: documentLimits(env),
    migrateOnBoot: env.MIGRATE_ON_BOOT !== 'false',
    creditLease: onOff('CREDIT_LEASE', env.CREDIT_LEASE),
    creditLeaseBusyCalls: atLeastOne('CREDIT_LEASE_BUSY_CALLS', env.CREDIT_LEASE_BUSY_CALLS) ?? defaults.creditLeaseBusyCalls,
    creditLeaseMinCalls: atLeastOne('CREDIT_LEASE_MIN_CALLS', env.CREDIT_LEASE_MIN_CALLS) ?? defaults.creditLeaseMinCalls,
    maintenanceSchedule: env.MAINTENANCE_SCHEDULE === 'off' ? null : env.MAINTENANCE_SCHEDULE || '*/5 * * * *',
    worker: workerSettings(env),
    batches: batchSettings(env),
  }
}

function batchSettings(env: NodeJS.ProcessEnv): BatchSettings {
  const d = defaults.batches
  const b: BatchSettings = {
    discountPercent: int('BATCH_DISCOUNT_PERCENT', env.BATCH_DISCOUNT_PERCENT) ?? d.discountPercent,
    accountConcurrency: int('BATCH_ACCOUNT_CONCURRENCY', env.BATCH_ACCOUNT_CONCURRENCY) ?? d.accountConcurrency,
    concurrency: int('BATCH_CONCURRENCY', env.BATCH_CONCURRENCY) ?? d.concurrency,
    itemsPerSecond: positive('BATCH_ITEMS_PER_SECOND', env.BATCH_ITEMS_PER_SECOND) ?? d.itemsPerSecond,
  }
  if (b.discountPercent > 99) throw new BootRefusal('BATCH_DISCOUNT_PERCENT must be 0 to 99')
  if (b.accountConcurrency < 1 || b.concurrency < 1)
    throw new BootRefusal('BATCH_ACCOUNT_CONCURRENCY and BATCH_CONCURRENCY must be at least 1')
  return b
}

function resultCacheSettings(env: NodeJS.ProcessEnv): Config['resultCache'] {
  const pricePercent = int('RESULT_CACHE_PRICE_PERCENT', env.RESULT_CACHE_PRICE_PERCENT) ?? defaults.resultCache.pricePercent
  if (pricePercent > 100) throw new BootRefusal(`RESULT_CACHE_PRICE_PERCENT must be 0 to 100, got ${pricePercent}`)
  return { pricePercent, ttlHours: positive('RESULT_CACHE_TTL_HOURS', env.RESULT_CACHE_TTL_HOURS) ?? defaults.resultCache.ttlHours }
}

function workerSettings(env: NodeJS.ProcessEnv): WorkerSettings {
  const d = defaults.worker
  const w: WorkerSettings = {
    concurrency: int('WORKER_CONCURRENCY', env.WORKER_CONCURRENCY) ?? d.concurrency,
    prefetch: int('WORKER_PREFETCH', env.WORKER_PREFETCH) ?? d.prefetch,
    heartbeatSeconds: positive('WORKER_HEARTBEAT_SECONDS', env.WORKER_HEARTBEAT_SECONDS) ?? d.heartbeatSeconds,
    deadAfterSeconds: positive('WORKER_DEAD_AFTER_SECONDS', env.WORKER_DEAD_AFTER_SECONDS) ?? d.deadAfterSeconds,
  }
  if (w.concurrency < 1) throw new BootRefusal('WORKER_CONCURRENCY must be at least 1')
  // Two missed heartbeats at least, so a late timer or a slow round trip is not taken for a death.
  if (w.deadAfterSeconds < 3 * w.heartbeatSeconds)
    throw new BootRefusal('WORKER_DEAD_AFTER_SECONDS must be at least three times WORKER_HEARTBEAT_SECONDS')
  return w
}

function documentLimits(env: NodeJS.ProcessEnv): DocumentLimits {
  const d = defaults.documents
  const read = (name: string, fallback: number) => int(name, env[name]) ?? fallback
  const limits: DocumentLimits = {
    workers: read('DOCUMENT_WORKERS', d.workers),
    queue: read('DOCUMENT_QUEUE', d.queue),
    memoryMiB: read('DOCUMENT_MEMORY_MIB', d.memoryMiB),
    timeoutMs: read('DOCUMENT_TIMEOUT_MS', d.timeoutMs),
    maxDecompressedBytes: read('DOCUMENT_MAX_DECOMPRESSED_BYTES', d.maxDecompressedBytes),
    maxPages: read('DOCUMENT_MAX_PAGES', d.maxPages),
    maxObjects: read('DOCUMENT_MAX_OBJECTS', d.maxObjects),
    maxCharacters: read('DOCUMENT_MAX_CHARACTERS', d.maxCharacters),
    maxNesting: read('DOCUMENT_MAX_NESTING', d.maxNesting),
    maxImagePixels: read('DOCUMENT_MAX_IMAGE_PIXELS', d.maxImagePixels),
    unpaidSecondsPerHour: read('DOCUMENT_UNPAID_SECONDS_PER_HOUR', d.unpaidSecondsPerHour),
  }
  if (limits.workers < 1) throw new BootRefusal('DOCUMENT_WORKERS must be at least 1')
  if (limits.memoryMiB < 128)
    throw new BootRefusal('DOCUMENT_MEMORY_MIB must be at least 128 (a decoder with pdf.js loaded needs about 100 MiB)')
  return limits
}

/** The shortest operator secret the service starts with: 32 characters (`openssl rand -hex 32` makes 64). */
export const MIN_OPERATOR_SECRET_LENGTH = 32
/** Words of example values, however spelt (case, separators): a secret containing one was copied from an example. */
const PLACEHOLDER_WORDS = ['changeme', 'replaceme', 'placeholder', 'example', 'yourtoken', 'yoursecret', 'secrethere', 'tokenhere']

/**
 * Refuses an operator secret (ADMIN_TOKEN, MAINTENANCE_SECRET, METRICS_TOKEN) that can be guessed: shorter than
 * 32 characters, fewer than 8 distinct characters, or an example value. Unset is fine (its routes are 404).
 */
export function checkOperatorSecrets(config: Pick<Config, 'adminToken' | 'maintenanceSecret' | 'metricsToken'>): void {
  const secrets = { ADMIN_TOKEN: config.adminToken, MAINTENANCE_SECRET: config.maintenanceSecret, METRICS_TOKEN: config.metricsToken }
  for (const [name, value] of Object.entries(secrets)) {
    if (value === undefined) continue
    const words = value.toLowerCase().replace(/[^a-z0-9]/g, '')
    const why =
      value.length < MIN_OPERATOR_SECRET_LENGTH
        ? `is ${value.length} characters long; at least ${MIN_OPERATOR_SECRET_LENGTH} are needed`
        : PLACEHOLDER_WORDS.some((w) => words.includes(w))
          ? 'is an example value'
          : new Set(value).size < 8
            ? 'has fewer than 8 distinct characters'
            : null
    if (why) throw new BootRefusal(`${name} ${why}: set a random one, e.g. \`openssl rand -hex 32\`, or unset it (its routes answer 404)`)
  }
}
