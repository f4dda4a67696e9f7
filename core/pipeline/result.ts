import { ApiError } from '../errors.ts'
import type { ModelProvider } from '../models/provider.ts'
import type { Capability } from '../registry.ts'
import { ajv } from '../validation.ts'

/** The handler's result must match the published response schema; a mismatch is a failed (free) call. */
export function checkResult(cap: Capability, result: unknown, log: (m: string) => void): void {
  if (cap.validateResponse(result)) return
  log(`[${cap.name}] result fails the response schema: ${ajv.errorsText(cap.validateResponse.errors)}`)
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
}

/** Stage 7's first refusal (C11): a model-backed capability with no provider, or no web search where needed. */
export function requireProvider(cap: Capability, provider: ModelProvider): void {
  if (cap.model && !provider.configured) {
    throw new ApiError('inference_unavailable', 'No model provider is configured on this server; nothing was charged.')
  }
  if (cap.webSearch && !provider.webSearch()) {
    throw new ApiError('inference_unavailable', `/v1/${cap.name} needs a provider with web search (AI_WIRE_API=responses); nothing was charged.`)
  }
}
