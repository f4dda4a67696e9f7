// Reviews (C21): the queue of extracted results a person must check, and one review at a time: each page of the
// document with the quote of every flagged field highlighted, beside a form with each field's value. The form is
// the keyboard's: the first value has the focus, Tab moves to the next, a value left as it is is accepted, one
// typed over is the correction, Enter completes the review. A PDF's pages are shown as images too (rendered in the
// decoder pool when the browser asks, lazily), above their text. Completed reviews say who reviewed what. Live reviews
// only (test keys never reach a model, so they never make one). Reading: every role but billing; reviewing:
// developers and above.
import type Router from '@koa/router'
import { ApiError } from '../../errors.ts'
import {
  completeReview,
  getReview,
  listReviews,
  locate,
  type CompleteInput,
  type ReviewDetail,
  type ReviewSummary,
} from '../../reviews/queue.ts'
import { PAGE_IMAGE_MAX_AGE_SECONDS, renderReviewPage, reviewPageImages } from '../../reviews/pages.ts'
import { getReviewSettings, putReviewSettings, type ReviewSettings } from '../../reviews/settings.ts'
import { when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html, type Html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

/** A value as the form shows it, and the same text read back. */
const shown = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))

/** The reviewer's text for a field: unchanged is accepted; otherwise the correction, typed as the value was. */
function decision(path: string, original: unknown, text: string, i: number): CompleteInput['fields'][number] {
  if (text === shown(original)) return { path, action: 'accept' }
  if (typeof original === 'number' && /^-?\d+(\.\d+)?$/.test(text.trim())) return { path, action: 'correct', value: Number(text.trim()) }
  if (original && typeof original === 'object') {
    try {
      return { path, action: 'correct', value: JSON.parse(text) as unknown }
    } catch {
      throw new ApiError('invalid_request', `The value of ${path} is a list item: write it as JSON, e.g. {"amount": 12.5}.`, [
        { path: `/f${i}`, message: 'not JSON' },
      ])
    }
  }
  return { path, action: 'correct', value: text }
}

export function reviewsRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  const scope = (accountId: string) => ({ accountId, livemode: true })
  router.get('/dashboard/reviews', allow('reviews.read'), async (ctx) => {
    const q = read.query.reviews(ctx.query)
    const found = await listReviews(services.db, scope(state(ctx).session.accountId), {
      limit: 50,
      ...(q.status ? { status: q.status } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    })
    const settings = await getReviewSettings(services.db, state(ctx).session.accountId)
    page(ctx, queuePage(await frame(ctx, 'reviews', notice(q.done)), settings, found.reviews, q.status || '', found.nextCursor))
  })
  router.post('/dashboard/reviews/settings', allow('reviews.write'), async (ctx) => {
    const f = read.form.reviewSettings(body(ctx))
    const endpoints = f.endpoints?.split(/[\s,]+/).filter(Boolean)
    await putReviewSettings(
      services.db,
      services.keys,
      services.capabilities,
      state(ctx).session.accountId,
      {
        mode: f.mode,
        ...(f.threshold ? { threshold: Number(f.threshold) } : {}),
        ...(endpoints?.length ? { endpoints: [...new Set(endpoints)] } : {}),
        evalConsent: f.evalConsent === '1',
      },
      acting(ctx),
    )
    ctx.redirect('/dashboard/reviews?done=review-settings')
  })
  router.get('/dashboard/reviews/:id', allow('reviews.read'), async (ctx) => {
    read.query.none(ctx.query)
    const where = scope(state(ctx).session.accountId)
    const review = await getReview(services.db, where, ctx.params.id!)
    const images = await reviewPageImages(services.db, where, review.id)
    page(ctx, reviewPage(await frame(ctx, 'reviews'), review, new Set(images)))
  })
  router.get('/dashboard/reviews/:id/pages/:n.png', allow('reviews.read'), async (ctx) => {
    read.query.none(ctx.query)
    const n = /^[1-9]\d{0,5}$/.test(ctx.params.n!) ? Number(ctx.params.n) : 0
    const png = await renderReviewPage(services, scope(state(ctx).session.accountId), ctx.params.id!, n)
    ctx.set('Cache-Control', `private, max-age=${PAGE_IMAGE_MAX_AGE_SECONDS}`)
    ctx.type = 'image/png'
    ctx.body = Buffer.from(png.buffer, png.byteOffset, png.byteLength)
  })
  router.post('/dashboard/reviews/:id', allow('reviews.write'), async (ctx) => {
    const form = read.form.review(body(ctx)) as Record<string, string>
    const where = scope(state(ctx).session.accountId)
    const review = await getReview(services.db, where, ctx.params.id!)
    const fields = review.flagged.map((f, i) => decision(f.path, f.value, form[`f${i}`] ?? shown(f.value), i))
    await completeReview(services.db, services.capabilities, where, review.id, { fields }, acting(ctx))
    ctx.redirect(`/dashboard/reviews/${review.id}`)
  })
}

const reviewerName = (r: ReviewSummary['reviewer']) => (r ? (r.email ?? (r.keyPrefix ? `key ${r.keyPrefix}…` : r.id)) : '')

function settingsForm(frame: Frame, s: ReviewSettings): Html {
  if (!frame.can('reviews.write'))
    return html`<p class="muted small">
      Review mode: <strong>${s.mode}</strong>${s.threshold !== undefined ? ` (under ${s.threshold})` : ''}
    </p>`
  return html`<form method="post" action="/dashboard/reviews/settings" class="row" data-testid="review-settings">
    ${csrfField(frame.csrf)}
    <label
      >Send to review<select name="mode">
        ${(
          [
            ['off', 'nothing (off)'],
            ['ungrounded', 'values code could not verify'],
            ['below', 'values under a confidence'],
          ] as const
        ).map(([value, label]) => html`<option value="${value}" ${s.mode === value ? 'selected' : ''}>${label}</option>`)}
      </select></label
    >
    <label>Confidence under<input name="threshold" value="${s.threshold ?? ''}" placeholder="0.8" maxlength="8" /></label>
    <label
      >Endpoints<input name="endpoints" value="${s.endpoints?.join(', ') ?? ''}" placeholder="all extracting endpoints" maxlength="2000"
    /></label>
    <label class="check"
      ><input type="checkbox" name="evalConsent" value="1" ${s.evalConsent ? 'checked' : ''} /> Completed reviews may be used for
      evaluation</label
    >
    <button>Save</button>
  </form>`
}

function queuePage(frame: Frame, settings: ReviewSettings, reviews: ReviewSummary[], status: string, nextCursor?: string): string {
  const tab = (value: string, label: string) =>
    html`<a class="${status === value ? 'button primary' : 'button'}" href="/dashboard/reviews${value ? `?status=${value}` : ''}"
      >${label}</a
    >`
  return layout(
    frame,
    'Reviews',
    html`<section class="card">
        <p class="muted">
          Extracted values code could not verify, sent here by the account’s review settings (below, or PUT /v1/review-settings). Open one
          to check each value against the document.
        </p>
        ${settingsForm(frame, settings)}
      </section>
      <section class="card">
        <div class="row">${tab('', 'All')} ${tab('pending', 'Pending')} ${tab('completed', 'Completed')}</div>
        ${
          reviews.length
            ? html`<table data-testid="reviews">
                  <thead>
                    <tr>
                      <th>Created</th>
                      <th>Endpoint</th>
                      <th>Fields</th>
                      <th>Status</th>
                      <th>Reviewed by</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${reviews.map(
                      (r) =>
                        html`<tr data-review-id="${r.id}">
                          <td><a href="/dashboard/reviews/${r.id}">${when(r.createdAt)}</a></td>
                          <td><code>${r.endpoint}</code></td>
                          <td>${r.fields.map((f) => html`<code>${f}</code> `)}</td>
                          <td>${r.status}</td>
                          <td>${reviewerName(r.reviewer)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
                ${
                  nextCursor
                    ? html`<p class="right">
                        <a
                          class="button"
                          href="/dashboard/reviews?${new URLSearchParams({ ...(status ? { status } : {}), cursor: nextCursor }).toString()}"
                          >Older reviews →</a
                        >
                      </p>`
                    : ''
                }`
            : html`<p class="muted empty">No reviews.</p>`
        }
      </section>`,
  )
}

/** One page's text with the quotes of the flagged fields on it marked (each mark names its field). */
function markedPage(text: string, quotes: Array<{ quote: string; n: number }>): Html {
  const spans = quotes
    .flatMap(({ quote, n }) => {
      const at = locate(text, quote)
      return at ? [{ start: at[0], end: at[1], n }] : []
    })
    .sort((a, b) => a.start - b.start)
  const parts: Array<string | Html> = []
  let from = 0
  for (const s of spans) {
    if (s.start < from) continue // overlapping quotes: the first one marked
    parts.push(text.slice(from, s.start), html`<mark id="q${s.n}" data-field="${s.n}">${text.slice(s.start, s.end)}</mark>`)
    from = s.end
  }
  parts.push(text.slice(from))
  return html`${parts}`
}

function reviewPage(frame: Frame, r: ReviewDetail, images: ReadonlySet<number>): string {
  const pending = r.status === 'pending'
  const edit = pending && frame.can('reviews.write')
  const decided = new Map((r.decisions ?? []).map((d) => [d.path, d]))
  const onPage = (p: number) =>
    r.flagged.flatMap((f, n) => (f.evidence && (f.evidence.page ?? 1) === p ? [{ quote: f.evidence.quote, n }] : []))
  const fieldRow = (f: ReviewDetail['flagged'][number], i: number) => {
    const d = decided.get(f.path)
    return html`<div class="review-field" data-path="${f.path}">
      <label
        ><code>${f.path}</code>
        <span class="muted small"
          >${f.grounded ? 'quoted' : 'not found in the document'} · confidence
          ${f.confidence}${f.evidence ? html` · <a href="#q${i}">page ${f.evidence.page ?? 1}</a>` : ''}</span
        >
        ${
          edit
            ? html`<input name="f${i}" value="${shown(f.value)}" ${i === 0 ? 'autofocus' : ''} aria-label="${f.path}" />`
            : html`<div class="value">${shown(f.value)}</div>`
        }</label
      >
      ${f.evidence ? html`<blockquote class="small">${f.evidence.quote}</blockquote>` : ''}
      ${
        d
          ? html`<p class="small" data-testid="decision">
              ${d.action === 'accept' ? 'Accepted' : html`Corrected to <strong>${shown(d.value)}</strong>`} by ${reviewerName(r.reviewer)}
            </p>`
          : ''
      }
    </div>`
  }
  return layout(
    frame,
    `Review ${r.id}`,
    html`<section class="card">
        <p>
          <code>${r.endpoint}</code> · request <code>${r.requestId}</code>${r.jobId ? html` · job <code>${r.jobId}</code>` : ''} ·
          ${when(r.createdAt)} ·
          <strong data-testid="status">${r.status}</strong>
          ${r.completedAt ? html` · reviewed by <strong data-testid="reviewer">${reviewerName(r.reviewer)}</strong> ${when(r.completedAt)}` : ''}
        </p>
        ${edit ? html`<p class="muted small">Tab moves between values. Leave a value as it is to accept it, type over it to correct it; Enter completes the review.</p>` : ''}
      </section>
      <div class="review">
        <section class="card review-document">
          <h2>Document</h2>
          ${
            r.pages.length
              ? r.pages.map((text, p) => {
                  const image = images.has(p + 1)
                  return html`<h3 class="small muted">Page ${p + 1}</h3>
                    ${
                      image
                        ? html`<img
                            class="page-image"
                            src="/dashboard/reviews/${r.id}/pages/${p + 1}.png"
                            loading="lazy"
                            alt="Page ${p + 1} of the document as an image${text.trim() ? '; its text follows' : ' (it has no text layer)'}"
                            data-page="${p + 1}"
                          />`
                        : ''
                    }
                    ${image && !text.trim() ? '' : html`<pre class="page" data-page="${p + 1}">${markedPage(text, onPage(p + 1))}</pre>`}`
                })
              : html`<p class="muted empty">No text: the document is an image.</p>`
          }
        </section>
        <section class="card review-fields">
          <h2>Flagged values</h2>
          ${
            edit
              ? html`<form method="post" action="/dashboard/reviews/${r.id}" class="stack">
                  ${csrfField(frame.csrf)} ${r.flagged.map(fieldRow)}
                  <button class="primary" accesskey="s">Complete review</button>
                </form>`
              : r.flagged.map(fieldRow)
          }
        </section>
      </div>`,
  )
}
