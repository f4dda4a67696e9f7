import { ApiError } from '../errors.ts'
import type { Capability } from '../registry.ts'
import { ajv } from '../validation.ts'

/** The handler's result must match the published response schema; a mismatch is a failed (free) call. */
export function checkResult(cap: Capability, result: unknown, log: (m: string) => void): void {
  if (cap.validateResponse(result)) return
  log(`[${cap.name}] result fails the response schema: ${ajv.errorsText(cap.validateResponse.errors)}`)
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
}
