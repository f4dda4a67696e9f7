// GET /metrics (Prometheus text, prom-client). What one process sees happen (requests, model calls) is
// counted here as it happens; what the database knows for every process (credits charged, open holds,
// jobs, webhook attempts) is read from it in one statement per scrape, so the API and the worker agree.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Query } from '../query.ts'
import type { AttemptRecord } from './attempt.ts'

export interface Metrics {
  readonly registry: Registry
  /** One answered request (the access line's fields; credits are read from the database per scrape instead). */
  request(r: { method: string; route: string; status: number; seconds: number; code?: string | undefined }): void
  /** Times one model call of a capability: latency by outcome, and failures. */
  modelCall<T>(endpoint: string, kind: string, fn: () => Promise<T>): Promise<T>
  /** One request to a model provider (an attempt of a call): outcome, latency, tokens and cost. */
  providerAttempt(record: AttemptRecord): void
  /** A call moved from one provider to the next. */
  providerFallback(from: string, to: string): void
  /** Where the breaker states are read on each scrape. */
  watchBreakers(read: () => Array<{ provider: string; open: boolean }>): void
  /** The exposition text, with the database-backed values read now. */
  render(db: Query): Promise<string>
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

type Registers = Registry[]

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  // In exposition order: what this process counts, then what the database knows.
  const http = httpMetrics(registers)
  const modelCalls = modelCallMetrics(registers)
  const providers = providerMetrics(registers)
  const fromDatabase = databaseMetrics(registers)
  return {
    registry,
    ...http,
    ...modelCalls,
    ...providers,
    async render(db) {
      const [row] = await db.sql(SNAPSHOT)
      fromDatabase.set(row!)
      return registry.metrics()
    },
  }
}

/** Requests answered by this process, and the rate limit's refusals. */
function httpMetrics(registers: Registers): Pick<Metrics, 'request'> {
  const requests = new Counter({
    name: 'capapi_http_requests_total',
    help: 'Answered HTTP requests',
    labelNames: ['method', 'route', 'status'],
    registers,
  })
  const latency = new Histogram({
    name: 'capapi_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route', 'status'],
    buckets: SECONDS,
    registers,
  })
  const refusals = new Counter({
    name: 'capapi_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limited',
    labelNames: ['route'],
    registers,
  })
  return {
    request({ method, route, status, seconds, code }) {
      const labels = { method, route, status: String(status) }
      requests.inc(labels)
      latency.observe(labels, seconds)
      if (code === 'rate_limited') refusals.inc({ route })
    },
  }
}

/** A capability's model calls in this process. */
function modelCallMetrics(registers: Registers): Pick<Metrics, 'modelCall'> {
  const modelLatency = new Histogram({
    name: 'capapi_model_call_duration_seconds',
    help: 'Time of a capability model call (with its corrective retry)',
    labelNames: ['endpoint', 'kind', 'outcome'],
    buckets: SECONDS,
    registers,
  })
  const modelFailures = new Counter({
    name: 'capapi_model_call_failures_total',
    help: 'Model calls that failed or timed out',
    labelNames: ['endpoint', 'kind'],
    registers,
  })
  return {
    async modelCall(endpoint, kind, fn) {
      const started = process.hrtime.bigint()
      let outcome = 'failed'
      try {
        const out = await fn()
        outcome = 'ok'
        return out
      } finally {
        modelLatency.observe({ endpoint, kind, outcome }, Number(process.hrtime.bigint() - started) / 1e9)
        if (outcome === 'failed') modelFailures.inc({ endpoint, kind })
      }
    },
  }
}

/** Requests to model providers by this process: outcomes, tokens, cost, fallbacks and breakers. */
function providerMetrics(registers: Registers): Pick<Metrics, 'providerAttempt' | 'providerFallback' | 'watchBreakers'> {
  // The provider side (issue 28), named as LLM gateways name them. Counted in the process that made the request:
  // Prometheus sums the API and worker processes, and their sum equals the rows of model_requests.
  const providerRequests = new Counter({
    name: 'ai_provider_requests_total',
    help: 'Requests to model providers by outcome (ok, rate_limited, server_error, timeout, connection, context_length, model_not_found, refused)',
    labelNames: ['provider', 'model', 'outcome'],
    registers,
  })
  const providerTokens = new Counter({
    name: 'ai_provider_tokens_total',
    help: 'Tokens model providers reported, by kind (input includes cached input)',
    labelNames: ['provider', 'model', 'kind'],
    registers,
  })
  const providerCost = new Counter({
    name: 'ai_provider_cost_usd_total',
    help: 'USD of the tokens model providers reported, at the price table (config/prices.json, AI_PRICES)',
    labelNames: ['provider', 'model'],
    registers,
  })
  const unpriced = new Counter({
    name: 'ai_provider_unpriced_requests_total',
    help: 'Answered provider requests whose model has no known price (their cost is recorded as null)',
    labelNames: ['provider', 'model'],
    registers,
  })
  const attemptLatency = new Histogram({
    name: 'ai_provider_attempt_duration_seconds',
    help: 'Time of one request to a model provider',
    labelNames: ['provider', 'model', 'outcome'],
    buckets: SECONDS,
    registers,
  })
  const fallbacks = new Counter({
    name: 'ai_provider_fallbacks_total',
    help: 'Calls that moved from one provider to the next',
    labelNames: ['from', 'to'],
    registers,
  })
  let breakerStates: () => Array<{ provider: string; open: boolean }> = () => []
  new Gauge({
    name: 'ai_provider_breaker_open',
    help: '1 while a provider is skipped because it asked to wait (Retry-After), else 0',
    labelNames: ['provider'],
    registers,
    collect() {
      this.reset()
      for (const { provider, open } of breakerStates()) this.set({ provider }, open ? 1 : 0)
    },
  })
  return {
    providerAttempt({ provider, model, outcome, seconds, tokens, costUsd }) {
      providerRequests.inc({ provider, model, outcome })
      attemptLatency.observe({ provider, model, outcome }, seconds)
      if (!tokens) return
      providerTokens.inc({ provider, model, kind: 'input' }, tokens.input)
      providerTokens.inc({ provider, model, kind: 'output' }, tokens.output)
      if (costUsd === null) unpriced.inc({ provider, model })
      else providerCost.inc({ provider, model }, costUsd)
    },
    providerFallback(from, to) {
      fallbacks.inc({ from, to })
    },
    watchBreakers(read) {
      breakerStates = read
    },
  }
}

/** What the database knows for every process, set from one SNAPSHOT row per scrape. */
function databaseMetrics(registers: Registers): { set(row: Record<string, unknown>): void } {
  const credits = new Counter({
    name: 'capapi_credits_charged_total',
    help: 'Credits charged since the database was created, by endpoint',
    labelNames: ['endpoint'],
    registers,
  })
  const holds = new Gauge({ name: 'capapi_holds_open', help: 'Holds placed and not yet captured or released', registers })
  const held = new Gauge({ name: 'capapi_holds_open_credits', help: 'Credits reserved by open holds', registers })
  const jobs = new Gauge({ name: 'capapi_jobs', help: 'Async jobs by state', labelNames: ['state'], registers })
  const attempts = new Counter({
    name: 'capapi_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'],
    registers,
  })
  const deliveriesFailed = new Counter({
    name: 'capapi_webhook_deliveries_failed_total',
    help: 'Webhook deliveries given up after every retry',
    registers,
  })
  // Worker liveness (core/jobs/liveness.ts): above 0 for longer than WORKER_DEAD_AFTER_SECONDS and a heartbeat
  // means no live worker is recovering.
  const liveWorkers = new Gauge({ name: 'capapi_workers_live', help: 'Worker processes with a recent heartbeat', registers })
  const lockedByDead = new Gauge({
    name: 'capapi_jobs_locked_by_dead_workers',
    help: 'Queue entries (every task) held by a worker whose heartbeat stopped, not yet returned',
    registers,
  })
  const recoveries = new Counter({
    name: 'capapi_worker_recoveries_total',
    help: 'Dead workers whose jobs were returned to the queue',
    registers,
  })
  const recoveredJobs = new Counter({
    name: 'capapi_worker_recovered_jobs_total',
    help: 'Queue entries returned from dead workers (running or prefetched when the worker died)',
    registers,
  })

  return {
    set(row) {
      credits.reset()
      for (const [endpoint, n] of Object.entries(row.credits as Record<string, number>)) credits.inc({ endpoint }, Number(n))
      holds.set(Number(row.open_holds))
      held.set(Number(row.held))
      jobs.reset()
      for (const state of ['queued', 'running', 'succeeded', 'failed'])
        jobs.set({ state }, Number((row.jobs as Record<string, number>)[state] ?? 0))
      // Counters whose running total the database keeps: set to it on each scrape.
      attempts.reset()
      attempts.inc({ outcome: 'delivered' }, Number(row.attempts) - Number(row.attempt_failures))
      attempts.inc({ outcome: 'failed' }, Number(row.attempt_failures))
      deliveriesFailed.reset()
      deliveriesFailed.inc(Number(row.deliveries_failed))
      liveWorkers.set(Number(row.live_workers))
      lockedByDead.set(Number(row.locked_by_dead))
      recoveries.reset()
      recoveries.inc(Number(row.recoveries))
      recoveredJobs.reset()
      recoveredJobs.inc(Number(row.recovered_jobs))
    },
  }
}

const SNAPSHOT = `select
  (select coalesce(json_object_agg(endpoint, n), '{}') from (select endpoint, sum(credits) n from usage_events group by endpoint) c) as credits,
  (select count(*) from holds where state = 'open') as open_holds,
  (select coalesce(sum(amount), 0) from holds where state = 'open') as held,
  (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*) n from jobs group by status) j) as jobs,
  (select count(*) from webhook_attempts) as attempts,
  (select count(*) from webhook_attempts where status_code is null or status_code not between 200 and 299) as attempt_failures,
  (select count(*) from webhook_deliveries where status = 'failed') as deliveries_failed,
  (select count(*) from workers where heartbeat_at >= now() - dead_after) as live_workers,
  (select count(*) from graphile_worker._private_jobs where locked_by in (select worker_id from dead_lock_holders())) as locked_by_dead,
  (select count(*) from worker_recoveries) as recoveries,
  (select coalesce(sum(jobs_returned), 0) from worker_recoveries) as recovered_jobs`
