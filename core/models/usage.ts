// What a call's model requests are recorded as: each attempt counted in the metrics as it ends, a failed one
// logged with the request id, and every one a row of model_requests (succeeded or not: a failed call's answered
// attempts were paid for at the provider all the same). Rows are written in batches, one statement per
// FLUSH_MS or FLUSH_ROWS for all the calls of the process, not a round trip per call (BENCHMARKS.md).
import type { Query } from '../db/database.ts'
import type { Logger } from '../observability/log.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { AttemptRecord } from '../observability/attempt.ts'
import type { ModelMeter } from './fallback.ts'

const FLUSH_MS = 250
const FLUSH_ROWS = 500

interface Row {
  request_id: string
  account_id: string
  endpoint: string
  created_at: Date
  provider: string
  model: string
  outcome: string
  ms: number
  input_tokens: number | null
  cached_input_tokens: number | null
  output_tokens: number | null
  reasoning_tokens: number | null
  cost_usd: number | null
}

export interface ModelRequestLog {
  add(rows: Row[]): void
  /** Writes what is pending now (the cost report and shutdown call it); a failed write is logged, not thrown. */
  flush(): Promise<void>
  close(): Promise<void>
}

/** Written without waiting for the disk (`db` is the async-commit handle): a crash may lose a record, never money. */
export function modelRequestLog(db: Query, logger: Logger): ModelRequestLog {
  let pending: Row[] = []
  let timer: NodeJS.Timeout | null = null
  let writing: Promise<void> = Promise.resolve()
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = null
    if (!pending.length) return writing
    const rows = pending
    pending = []
    writing = writing.then(() =>
      db.sql(INSERT, [JSON.stringify(rows)]).then(
        () => undefined,
        (e: unknown) => logger.error({ rows: rows.length, err: { type: (e as Error).name } }, 'model requests not recorded'),
      ),
    )
    return writing
  }
  return {
    add(rows) {
      pending.push(...rows)
      if (pending.length >= FLUSH_ROWS) void flush()
      else timer ??= setTimeout(() => void flush(), FLUSH_MS).unref()
    },
    flush,
    close: flush,
  }
}

const INSERT = `insert into model_requests (request_id, account_id, endpoint, created_at, provider, model, outcome, ms,
  input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, cost_usd)
select * from jsonb_to_recordset(?::jsonb) as r (request_id text, account_id uuid, endpoint text, created_at timestamptz,
  provider text, model text, outcome text, ms integer, input_tokens integer, cached_input_tokens integer, output_tokens integer,
  reasoning_tokens integer, cost_usd numeric)`

export interface CallMeter {
  meter: ModelMeter
  /** Hands the attempts heard since the last call to the process's log of model requests. */
  record(): void
}

export function callMeter(
  services: { metrics: Metrics; logger: Logger; now(): Date; modelRequests: ModelRequestLog },
  call: { requestId: string; accountId: string; endpoint: string },
  /** Adds up what the provider charged for the call's attempts (priced models only). */
  spent?: { usd: number },
): CallMeter {
  const { metrics, logger } = services
  let heard: AttemptRecord[] = []
  return {
    meter: {
      attempt(record) {
        metrics.providerAttempt(record)
        if (record.outcome !== 'ok')
          logger.warn(
            {
              reqId: call.requestId,
              endpoint: call.endpoint,
              provider: record.provider,
              model: record.model,
              outcome: record.outcome,
              ms: Math.round(record.seconds * 1000),
            },
            'model attempt failed',
          )
        heard.push(record)
        if (spent) spent.usd += record.costUsd ?? 0
      },
      fallback(from, to) {
        metrics.providerFallback(from, to)
        logger.info({ reqId: call.requestId, endpoint: call.endpoint, from, to }, 'model call moved to the next provider')
      },
    },
    record() {
      if (!heard.length) return
      const at = services.now()
      services.modelRequests.add(
        heard.map((r) => ({
          request_id: call.requestId,
          account_id: call.accountId,
          endpoint: call.endpoint,
          created_at: at,
          provider: r.provider,
          model: r.model,
          outcome: r.outcome,
          ms: Math.round(r.seconds * 1000),
          input_tokens: r.tokens?.input ?? null,
          cached_input_tokens: r.tokens?.cachedInput ?? null,
          output_tokens: r.tokens?.output ?? null,
          reasoning_tokens: r.tokens?.reasoning ?? null,
          cost_usd: r.costUsd,
        })),
      )
      heard = []
    },
  }
}
