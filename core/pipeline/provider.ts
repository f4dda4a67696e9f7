// Stage 7's first refusal (C11), before any model runs: live calls, jobs' acceptance and dry runs ask it. The
// same reason marks the capability unavailable in the OpenAPI document (x-available) and the MCP tool list. A
// model the provider is known not to serve (its GET /models, a 404 for it) is such a reason too, so a dry run
// quotes it.
import { ApiError } from '../errors.ts'
import type { ModelProvider } from '../models/provider.ts'
import type { Capability } from '../run/registry.ts'

/** Why this server's model provider cannot serve the capability, as one clause (null: it can). */
export function unavailableReason(capability: Capability, provider: ModelProvider): string | null {
  if (capability.model && !provider.configured) return 'No model provider is configured on this server'
  const unserved = capability.model && provider.unserved?.(capability.name, capability.model)
  if (unserved) return unserved
  if (capability.webSearch && !provider.webSearch())
    return `/v1/${capability.name} needs a provider with web search (AI_WIRE_API=responses)`
  return null
}

/** A model-backed capability with no provider, a model no provider serves, or no web search where needed. */
export function requireProvider(capability: Capability, provider: ModelProvider): void {
  const reason = unavailableReason(capability, provider)
  if (reason) throw new ApiError('inference_unavailable', `${reason}; nothing was charged.`)
}
