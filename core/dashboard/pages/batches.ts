// The dashboard's Batches page: the account's batches (GET /v1/batches), live or test, each with its progress,
// counts and credits, and the download of its results as JSON Lines (GET /v1/batches/{id}/results, streamed).
import type Router from '@koa/router'
import { listBatches } from '../../batches/list.ts'
import { resultLines } from '../../batches/results.ts'
import { findBatch, type BatchView } from '../../batches/view.ts'
import { credits, when } from '../format.ts'
import { state } from '../guards.ts'
import { html } from '../html.ts'
import { page, type Kit } from '../kit.ts'
import { layout, type Frame } from '../layout.ts'

export function batchesRoutes(router: Router, { services, allow, frame }: Kit): void {
  router.get('/dashboard/batches', allow('requests.read'), async (ctx) => {
    const q = ctx.query as Record<string, string | undefined>
    const mode = q.mode === 'test' ? 'test' : 'live'
    const cursor = typeof q.cursor === 'string' && q.cursor.length <= 100 ? q.cursor : undefined
    const list = await listBatches(
      services.db,
      { accountId: state(ctx).session.accountId, mode },
      { limit: 50, ...(cursor ? { cursor } : {}) },
    )
    page(ctx, batchesPage(await frame(ctx, 'batches'), mode, list.batches, list.nextCursor))
  })
  router.get('/dashboard/batches/:id/results', allow('requests.read'), async (ctx) => {
    const mode = ctx.query.mode === 'test' ? 'test' : 'live'
    const batch = await findBatch(services.db, { accountId: state(ctx).session.accountId, mode }, ctx.params.id!)
    ctx.type = 'application/x-ndjson'
    ctx.set('Content-Disposition', `attachment; filename="${ctx.params.id!}.jsonl"`)
    ctx.body = resultLines(services.db, batch.id as string)
  })
}

function batchesPage(frame: Frame, mode: 'live' | 'test', batches: BatchView[], nextCursor: string | undefined): string {
  const selected = (on: boolean) => (on ? 'selected' : '')
  return layout(
    frame,
    'Batches',
    html`<section class="card">
        <form method="get" action="/dashboard/batches" class="row filters">
          <label
            >Mode<select name="mode">
              <option value="live" ${selected(mode === 'live')}>Live</option>
              <option value="test" ${selected(mode === 'test')}>Test</option>
            </select></label
          >
          <button>Apply</button>
        </form>
      </section>
      <section class="card">
        ${
          batches.length
            ? html`<table class="batches">
                  <thead>
                    <tr>
                      <th>Created</th>
                      <th>Batch</th>
                      <th>Status</th>
                      <th>Progress</th>
                      <th class="right">Succeeded</th>
                      <th class="right">Failed</th>
                      <th class="right">Cancelled / expired</th>
                      <th class="right">Credits held / charged</th>
                      <th>Results</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${batches.map((b) => batchRow(b, mode))}
                  </tbody>
                </table>
                ${nextCursor ? html`<p class="right"><a class="button" href="/dashboard/batches?mode=${mode}&cursor=${nextCursor}">Older batches →</a></p>` : ''}`
            : html`<p class="muted empty">No ${mode} batches yet. POST /v1/batches runs up to 10,000 calls of one endpoint.</p>`
        }
      </section>`,
  )
}

function batchRow(b: BatchView, mode: 'live' | 'test') {
  const c = b.counts
  const ended = c.succeeded + c.failed + c.cancelled + c.expired
  return html`<tr data-batch-id="${b.batchId}">
    <td>${when(b.createdAt)}</td>
    <td><code>${b.endpoint}</code> <span class="muted small">${b.batchId}</span> <span class="pill">${b.window}</span></td>
    <td>
      <span class="pill ${b.status === 'completed' ? 'delivered' : b.status === 'running' || b.status === 'queued' ? 'pending' : 'failed'}"
        >${b.status}</span
      >
    </td>
    <td>
      <progress max="${c.total}" value="${ended}"></progress> <span data-testid="progress">${ended} of ${c.total} ended</span>${
        c.running ? html`, ${c.running} running` : ''
      }
    </td>
    <td class="right">${c.succeeded}</td>
    <td class="right">${c.failed}</td>
    <td class="right">${c.cancelled} / ${c.expired}</td>
    <td class="right">${credits(b.credits.held)} / ${credits(b.credits.charged)}</td>
    <td><a href="/dashboard/batches/${b.batchId}/results${mode === 'test' ? '?mode=test' : ''}" download>Download (JSON Lines)</a></td>
  </tr>`
}
