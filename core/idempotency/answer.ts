// The answer of an accepted async call (202), fresh or replayed: its body, the job it names in `Location`, and
// the job id for the request log's row. A leaf module: the idempotency replay and both modes' acceptance use it.
import type { Context } from 'koa'

export function answerAccepted(ctx: Context, body: string): void {
  const { jobId } = JSON.parse(body) as { jobId: string }
  ctx.status = 202
  ctx.type = 'application/json'
  ctx.set('Location', `/v1/jobs/${jobId}`)
  ctx.state.jobId = jobId
  ctx.body = body
}
