// Errors on /dashboard become pages, not JSON, and the page never shows internals. The same middleware sets
// the headers every dashboard response carries (no caching, no framing, a closed Content-Security-Policy).
import type { Middleware } from 'koa'
import { serviceUnavailable } from '../db/faults.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { html } from './html.ts'
import { document } from './layout.ts'

export function messagePage(status: number, message: string, back: string): string {
  return document(
    'Something went wrong',
    html`<div class="auth">
      <div class="card auth-card">
        <div class="brand big"><span class="logo">◆</span> Service</div>
        <h1>${status === 429 ? 'Slow down' : status === 404 ? 'Not found' : status === 403 ? 'Request refused' : 'That did not work'}</h1>
        <p>${message}</p>
        <p><a class="button" href="${back}">Go back</a></p>
      </div>
    </div>`,
  )
}

/** `origin`: the dashboard's public origin; a failed POST links back to its Referer only when it is that origin. */
export function errorPages(services: Services, origin: () => string): Middleware {
  /** A same-origin path from a URL the client sent (Referer), or null: origins are compared exactly. */
  const sameOriginPath = (raw: string): string | null => {
    try {
      const url = new URL(raw)
      return url.origin === origin() ? `${url.pathname}${url.search}` : null
    } catch {
      return null
    }
  }
  return async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.set('X-Frame-Options', 'DENY')
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
    )
    ctx.set('Referrer-Policy', 'same-origin')
    try {
      await next()
    } catch (e) {
      const err = e instanceof ApiError ? e : serviceUnavailable(e) // a database outage is a 503 page, not a bug
      if (!err) services.log(`[error] ${ctx.state.requestId} ${ctx.method} ${ctx.path}: ${(e as Error).stack ?? String(e)}`)
      for (const [k, v] of Object.entries(err?.headers ?? {})) ctx.set(k, v)
      ctx.status = err?.status ?? 500
      ctx.type = 'html'
      const back = (ctx.method === 'POST' && sameOriginPath(ctx.get('Referer'))) || '/dashboard'
      ctx.body = messagePage(ctx.status, err?.message ?? 'Something went wrong on our side. It has been logged.', back)
    }
  }
}
