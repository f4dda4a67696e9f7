// Builds the Services of one process: database (migrated), registry, key cache, limiter, provider.
import { jobEventListener } from './jobs/events.ts'
import { KeyCache } from './accounts/key-cache.ts'
import { ResultCache } from './cache/store.ts'
import { createStripe } from './billing/billing.ts'
import { DocumentSandbox } from './documents/sandbox.ts'
import { createMailer } from './mail.ts'
import { checkOperatorSecrets, contextConfig, type Config } from './config.ts'
import { awaitMigrations, migrate, openDatabase, resolveDatabaseUrl } from './db/database.ts'
import { modelCheckLine, openAIProvider } from './models/provider.ts'
import { UnpaidInference } from './models/unpaid.ts'
import { modelRequestLog } from './models/usage.ts'
import { createRateLimiter } from './ratelimit.ts'
import { createLogger } from './observability/log.ts'
import { createMetrics } from './observability/metrics.ts'
import { RequestLog } from './requests/record.ts'
import { loadCapabilities, type Capability } from './run/registry.ts'
import { CAPABILITIES_ROOT } from './capability-folders.ts'
import { loadSecretKeys, secretBox } from './secrets.ts'
import type { Services } from './services.ts'
import { oidcClient } from './sso/oidc.ts'
import { webhookListener } from './jobs/callbacks.ts'
import { batchesCompleted } from './batches/completed.ts'
import { batchEndings } from './batches/endings.ts'
import { reviewStep } from './reviews/hook.ts'
import { settleLeases } from './wallet/lease.ts'

export interface Booted {
  services: Services
  close(): Promise<void>
}

export async function boot(
  config: Config,
  overrides: Partial<Services> & { capabilities?: Map<string, Capability> } = {},
): Promise<Booted> {
  checkOperatorSecrets(config) // before anything starts: a guessable operator secret is a configuration error
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, pretty: config.logPretty })
  const log = overrides.log ?? ((m: string) => logger.info(m))
  const capabilities = overrides.capabilities ?? new Map((await loadCapabilities(CAPABILITIES_ROOT)).map((c) => [c.name, c]))
  const database = overrides.db ? null : await resolveDatabaseUrl(config.databaseUrl)
  // Before touching the database: a process that could not read its siblings' secrets must not start.
  const secrets =
    overrides.secrets ??
    secretBox(loadSecretKeys({ current: config.secretKey, previous: config.previousSecretKey, embedded: database?.embedded ?? true }))
  if (database) await (config.migrateOnBoot || database.embedded ? migrate(database.url) : awaitMigrations(database.url))
  const db = overrides.db ?? (await openDatabase(database!.url))
  const limiter = overrides.limiter ?? createRateLimiter(config.redisUrl, log)
  const now = overrides.now ?? (() => new Date())
  const provider = overrides.provider ?? openAIProvider(config.ai)
  if (!provider.configured) log('No model provider configured (set OPENAI_API_KEY or OPENAI_BASE_URL): model-backed calls answer 503.')
  else if (provider.checkModels) {
    const said = modelCheckLine(await provider.checkModels())
    if (said) log(said)
  }
  if (config.callbacksAllowPrivate)
    log('WARNING: CALLBACKS_ALLOW_PRIVATE=true: callbacks and fetches may reach private addresses and plain http. Development only.')
  const keys = overrides.keys ?? new KeyCache(db, { now, failuresPerMinute: config.authFailuresPerMinute })
  if (!overrides.keys) await keys.listen(db.url) // revocations from every instance (C9)
  const services: Services = {
    config,
    db,
    capabilities,
    keys,
    limiter,
    provider,
    secrets,
    now,
    log,
    mailer: overrides.mailer ?? createMailer(config.smtpUrl, config.mailFrom, log),
    stripe: overrides.stripe !== undefined ? overrides.stripe : createStripe(config.billing),
    logger,
    metrics: overrides.metrics ?? createMetrics(),
    requestLog: overrides.requestLog ?? new RequestLog(db.asyncCommit, log),
    modelRequests: modelRequestLog(db.asyncCommit, logger),
    sandbox: overrides.sandbox ?? new DocumentSandbox(config.documents, log),
    unpaidInference: overrides.unpaidInference ?? new UnpaidInference((config.ai.context ?? contextConfig({})).unpaidUsdPerHour),
    oidc: overrides.oidc ?? oidcClient({ config, resolver: overrides.resolver, now: () => services.now() }),
    resultCache: overrides.resultCache ?? new ResultCache(db, secrets, config.resultCache, log),
    ...(overrides.resolver ? { resolver: overrides.resolver } : {}),
  }
  services.jobEvents = overrides.jobEvents ?? [
    webhookListener(services),
    jobEventListener(services),
    batchEndings(() => services.now(), [(ids, q) => batchesCompleted(q, services.now(), ids)]),
  ]
  services.finishResult = reviewStep(services.db, services.secrets, () => services.now())
  const breakers = provider.breakers?.() ?? []
  services.metrics.watchBreakers(() => breakers.map((b) => ({ provider: b.provider, open: b.breaker.isOpen(Date.now()) })))
  return {
    services,
    async close() {
      await settleLeases(db)
      await services.requestLog.flush()
      await services.modelRequests.close()
      if (!overrides.resultCache) await services.resultCache.close()
      if (!overrides.sandbox) await services.sandbox.close()
      await limiter.close()
      if (!overrides.keys) await keys.close()
      if (!overrides.db) await db.close()
      await database?.stop()
    },
  }
}
