// What the pipeline leaves in ctx.state about a request, for its row of the request log (a leaf module: the
// pipeline's stages write these, core/requests/record.ts reads them).
import type { KeyMode } from '../http/caller.ts'
import type { AccessState } from '../observability/log.ts'
import type { Metadata } from '../http/metadata.ts'

/** A dry run: the status it quoted, and the refusal it quoted, if any. */
export interface DryRunState {
  liveStatus: number
  error?: { code: string; message: string }
}

export interface CallState extends AccessState {
  keyId?: string
  keyMode?: KeyMode
  errorMessage?: string
  dryRun?: DryRunState
  /** An Idempotency-Key's recorded answer, sent again. */
  replayed?: boolean
  /** The job a 202 accepted. */
  jobId?: string
  metadata?: Metadata
}
