// Everything a request or a job needs, built once per process and handed to buildApp() and the worker.
import type { Capability } from './run/registry.ts'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import type { KeyCache } from './accounts/key-cache.ts'
import type { RateLimiter } from './ratelimit.ts'
import type { ModelProvider } from './models/provider.ts'
import type { SecretBox } from './secrets.ts'
import type { Resolver } from './net/address-guard.ts'
import type { Mailer } from './mail.ts'
import type Stripe from 'stripe'
import type { Logger } from './observability/log.ts'
import type { Metrics } from './observability/metrics.ts'
import type { DocumentSandbox } from './documents/sandbox.ts'
import type { ResolvedDocument } from './documents/schema.ts'
import type { ReviewSetting } from './http/caller.ts'
import type { UnpaidInference } from './models/unpaid.ts'
import type { ModelRequestLog } from './models/usage.ts'
import type { RequestLog } from './requests/record.ts'
import type { OidcClient } from './sso/oidc.ts'
import type { ResultCache } from './cache/store.ts'

/** A capability's result checked against its schema, with what it was made from, before it is answered or stored. */
export interface FinishedResult {
  capability: Capability
  accountId: string
  livemode: boolean
  requestId: string
  /** the async job whose result it is */
  jobId?: string
  input: unknown
  /** the documents the handler read */
  documents: readonly ResolvedDocument[]
  result: object
  /** The account's review settings as its key brought them (core/http/caller.ts); absent: read them. */
  review?: ReviewSetting | null
}

/** Terminal job events; the webhook module subscribes (C7 → C8). */
export type JobEventName = 'job.completed' | 'job.failed'
/** The events of one group of job endings, inside the group's transaction. */
export type JobEvents = (events: Array<{ event: JobEventName; jobId: string }>, q: import('./db/database.ts').Query) => Promise<void>

export interface Services {
  config: Config
  db: Database
  capabilities: Map<string, Capability>
  keys: KeyCache
  limiter: RateLimiter
  provider: ModelProvider
  secrets: SecretBox
  /** DNS for the address guard; tests inject one (C8, C12). */
  resolver?: Resolver
  now: () => Date
  /**
   * The last step of every capability result, sync or async, before it is captured or stored: the result as it is
   * published (reviews, C21, add `review`; wired in boot.ts). Absent: the result as it is.
   */
  finishResult?: (finished: FinishedResult) => Promise<object>
  /** Listeners of terminal job events, called inside the job's final transaction. */
  jobEvents?: JobEvents[]
  /** A plain message line (boot, worker, maintenance); `logger` for structured lines. */
  log: (message: string) => void
  /** Sign-in links and account emails (SMTP_URL, or the log). */
  mailer: Mailer
  /** The Stripe client, or null without STRIPE_SECRET_KEY (the operator grants packs and plans). */
  stripe: Stripe | null
  logger: Logger
  metrics: Metrics
  /** The customer's request log (GET /v1/requests), written in groups. */
  requestLog: RequestLog
  /** Every provider request of this process, written to model_requests in batches (issue 28). */
  modelRequests: ModelRequestLog
  /** The decoder processes every untrusted document goes through (core/documents/sandbox.ts). */
  sandbox: DocumentSandbox
  /** Provider spend of each account's failed calls, this hour (core/models/unpaid.ts). */
  unpaidInference: UnpaidInference
  /** The OpenID Connect client of single sign-on (core/sso/oidc.ts). */
  oidc: OidcClient
  /** Results of the `cache: true` capabilities and the in-flight calls that lead them (C20, core/cache/). */
  resultCache: ResultCache
}
