// What a call's model requests are recorded as: each attempt counted in the metrics as it ends, a failed one
// logged with the request id, and all of them written to model_requests in one statement when the model call
// ends (succeeded or not: a failed call's answered attempts were paid for at the provider all the same).
import type { Services } from '../services.ts'
import type { AttemptRecord, ModelMeter } from './fallback.ts'

export interface CallMeter {
  meter: ModelMeter
  /** Writes the attempts heard since the last flush; a failure to write is logged, never the call's failure. */
  flush(): Promise<void>
}

export function callMeter(services: Services, call: { requestId: string; accountId: string; endpoint: string }): CallMeter {
  const { metrics, logger } = services
  let pending: AttemptRecord[] = []
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
        pending.push(record)
      },
      fallback(from, to) {
        metrics.providerFallback(from, to)
        logger.info({ reqId: call.requestId, endpoint: call.endpoint, from, to }, 'model call moved to the next provider')
      },
    },
    async flush() {
      if (!pending.length) return
      const rows = pending.map((r) => ({
        provider: r.provider,
        model: r.model,
        outcome: r.outcome,
        ms: Math.round(r.seconds * 1000),
        input_tokens: r.tokens?.input ?? null,
        cached_input_tokens: r.tokens?.cachedInput ?? null,
        output_tokens: r.tokens?.output ?? null,
        reasoning_tokens: r.tokens?.reasoning ?? null,
        cost_usd: r.costUsd,
      }))
      pending = []
      try {
        // Written without waiting for the disk, like the hold: a crash may lose the record, never money.
        await services.db.asyncCommit.sql(INSERT, [call.requestId, call.accountId, call.endpoint, services.now(), JSON.stringify(rows)])
      } catch (e) {
        logger.error({ reqId: call.requestId, err: { type: (e as Error).name } }, 'model requests not recorded')
      }
    },
  }
}

const INSERT = `insert into model_requests (request_id, account_id, endpoint, created_at, provider, model, outcome, ms,
  input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, cost_usd)
select ?, ?::uuid, ?, ?::timestamptz, r.* from jsonb_to_recordset(?::jsonb) as r (provider text, model text, outcome text, ms integer,
  input_tokens integer, cached_input_tokens integer, output_tokens integer, reasoning_tokens integer, cost_usd numeric)`
