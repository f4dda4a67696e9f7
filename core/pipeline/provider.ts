// Stage 7's first refusal (C11), before any model runs: live calls, jobs' acceptance and dry runs ask it. A model
// the provider is known not to serve (its GET /models, a 404) is refused here too, so a dry run quotes it.
import { ApiError } from '../errors.ts'
import type { ModelProvider } from '../models/provider.ts'
import type { Capability } from '../registry.ts'

/** A model-backed capability with no provider, a model no provider serves, or no web search where needed. */
export function requireProvider(capability: Capability, provider: ModelProvider): void {
  if (capability.model && !provider.configured) {
    throw new ApiError('inference_unavailable', 'No model provider is configured on this server; nothing was charged.')
  }
  const unserved = capability.model && provider.unserved?.(capability.name, capability.model)
  if (unserved) throw new ApiError('inference_unavailable', `${unserved}; nothing was charged.`)
  if (capability.webSearch && !provider.webSearch()) {
    throw new ApiError(
      'inference_unavailable',
      `/v1/${capability.name} needs a provider with web search (AI_WIRE_API=responses); nothing was charged.`,
    )
  }
}
