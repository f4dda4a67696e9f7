// Configuration (contract C15): environment first, then config/defaults.json.
import { readFileSync } from 'node:fs'

export interface PausedEntry {
  since: string
  reason: string
}

export interface AiConfig {
  apiKey?: string
  baseURL?: string
  wireApi: 'responses' | 'chat'
  models: { text: string; image: string; speech: string; transcription: string; embedding?: string }
}

export interface Config {
  port: number
  databaseUrl?: string
  redisUrl?: string
  adminToken?: string
  maintenanceSecret?: string
  secretKey?: string
  jobLeaseSeconds: number
  callbacksAllowPrivate: boolean
  webhookRetryDelays: number[]
  webhookTimeoutMs: number
  bodyLimitBytes: number
  syncModelTimeoutMs: number
  asyncModelTimeoutMs: number
  ai: AiConfig
  paused: Record<string, PausedEntry>
  rateLimits: Record<string, number>
  logLevel: string
  logPretty: boolean
  metricsToken?: string
}

const defaults = JSON.parse(readFileSync(new URL('../config/defaults.json', import.meta.url), 'utf8')) as Config

function json<T>(name: string, raw: string | undefined): T | undefined {
  if (raw === undefined || raw === '') return undefined
  try {
    return JSON.parse(raw) as T
  } catch {
    throw new Error(`${name} must be JSON`)
  }
}

function int(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${raw}"`)
  return n
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const wire = env.AI_WIRE_API ?? defaults.ai.wireApi
  if (wire !== 'responses' && wire !== 'chat') throw new Error(`AI_WIRE_API must be "responses" or "chat", got "${wire}"`)
  const delays = env.WEBHOOK_RETRY_DELAYS?.split(',').map((s) => int('WEBHOOK_RETRY_DELAYS', s.trim()) ?? 0)
  return {
    ...defaults,
    port: int('PORT', env.PORT) ?? defaults.port,
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    maintenanceSecret: env.MAINTENANCE_SECRET || undefined,
    secretKey: env.SECRET_ENCRYPTION_KEY || undefined,
    jobLeaseSeconds: int('JOB_LEASE_SECONDS', env.JOB_LEASE_SECONDS) ?? defaults.jobLeaseSeconds,
    callbacksAllowPrivate: env.CALLBACKS_ALLOW_PRIVATE === 'true',
    webhookRetryDelays: delays ?? defaults.webhookRetryDelays,
    ai: {
      apiKey: env.OPENAI_API_KEY || undefined,
      baseURL: env.OPENAI_BASE_URL || undefined,
      wireApi: wire,
      models: {
        text: env.AI_MODEL || defaults.ai.models.text,
        image: env.AI_IMAGE_MODEL || defaults.ai.models.image,
        speech: env.AI_SPEECH_MODEL || defaults.ai.models.speech,
        transcription: env.AI_TRANSCRIPTION_MODEL || defaults.ai.models.transcription,
        // Embeddings are opt-in: without them memory search uses full-text ranking.
        embedding: env.AI_EMBEDDING_MODEL || undefined,
      },
    },
    // PAUSED_ENDPOINTS replaces the whole list, e.g. '{}' to resume everything (C10).
    paused: json<Record<string, PausedEntry>>('PAUSED_ENDPOINTS', env.PAUSED_ENDPOINTS) ?? defaults.paused,
    rateLimits: { ...defaults.rateLimits, ...json<Record<string, number>>('RATE_LIMITS', env.RATE_LIMITS) },
    logLevel: env.LOG_LEVEL || defaults.logLevel,
    logPretty: env.LOG_PRETTY === 'true',
    metricsToken: env.METRICS_TOKEN || undefined,
  }
}
