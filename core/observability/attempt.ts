// One request to a model provider as its meters hear it (core/models/fallback.ts makes it; the metrics, the log line
// and the call's usage record read it): which provider and model, how it ended, how long it took, what it cost.

export type AttemptOutcome =
  'ok' | 'rate_limited' | 'server_error' | 'timeout' | 'connection' | 'context_length' | 'model_not_found' | 'refused'

export interface TokenUsage {
  input: number
  output: number
  cachedInput: number
  reasoning: number
}

export interface AttemptRecord {
  provider: string
  model: string
  outcome: AttemptOutcome
  seconds: number
  /** Present on an answer (outcome ok): what the provider reported. */
  tokens?: TokenUsage
  /** USD of the tokens at the price table; null when the model has no price or nothing was answered. */
  costUsd: number | null
}
