// Stage 3 (C10): config decides; an entry of `false` resumes an endpoint its manifest ships paused.
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { Capability } from '../registry.ts'

export function pausedReason(config: Config, cap: Capability): string | null {
  const entry = (config.paused as Record<string, { reason: string; since: string } | false | undefined>)[cap.name]
  if (entry) return `${entry.reason} (paused since ${entry.since})`
  if (entry === false || !cap.paused) return null
  return 'This endpoint is paused.'
}

export function checkPaused(config: Config, cap: Capability): void {
  const reason = pausedReason(config, cap)
  if (reason) throw new ApiError('inference_unavailable', `/v1/${cap.name} is paused: ${reason} Calls are not billed.`)
}
