// Stage 3 (C10): config decides; an entry of `false` resumes an endpoint its manifest ships paused.
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { Capability } from '../run/registry.ts'

export function pausedReason(config: Config, capability: Capability): string | null {
  const entry = config.paused[capability.name]
  if (entry) return `${entry.reason} (paused since ${entry.since})`
  if (entry === false || !capability.paused) return null
  return 'This endpoint is paused.'
}

export function checkPaused(config: Config, capability: Capability): void {
  const reason = pausedReason(config, capability)
  if (reason) throw new ApiError('inference_unavailable', `/v1/${capability.name} is paused: ${reason} Calls are not billed.`)
}
