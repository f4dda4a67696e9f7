// Routing rules that authorization must not depend on. Every router is case-sensitive and
// strict, so a route answers to one spelling only; and the operator areas are guarded by one app-level
// middleware that runs before any router, on the path as a router could ever read it (percent-decoded,
// lower-cased, slashes collapsed). A route added under /admin, /internal or /metrics cannot miss its token.
import Router from '@koa/router'
import type { Middleware } from 'koa'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { FailedAuthentications } from '../ratelimit.ts'
import { bearerMatches } from './auth.ts'

/**
 * The answer to a method the path has no route for, for every router at once (one middleware before them all;
 * koa-router gathers the layers every router matched by path in ctx.matched): 405 method_not_allowed with the
 * C2 body and `Allow` listing the path's methods (RFC 9110 requires it), OPTIONS 204 with `Allow`. A path no
 * router knows is 404 whatever the method, so no 405 is ever without its list. Methods no router implements
 * (TRACE, PROPFIND, MKCOL …, which Node parses) are refused the same way.
 */
export const methodRefusals: Middleware = async (ctx, next) => {
  await next()
  if (ctx.status !== 404 || ctx.body !== undefined) return
  const layers = (ctx as { matched?: Array<{ methods: string[] }> }).matched ?? []
  const allowed = [...new Set(layers.flatMap((l) => l.methods))]
  if (!allowed.length || allowed.includes(ctx.method)) return
  ctx.set('Allow', allowed.join(', '))
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204
    return
  }
  throw new ApiError('method_not_allowed', `${ctx.path} accepts ${allowed.join(', ')}, not ${ctx.method}.`, undefined, {
    Allow: allowed.join(', '),
  })
}

export function strictRouter(prefix?: string): Router {
  return new Router({ sensitive: true, strict: true, ...(prefix ? { prefix } : {}) })
}

/** The path with every spelling difference removed: decoded (until stable), lower-case, one slash, none trailing. */
export function canonicalPath(raw: string): string {
  let path = raw
  for (let i = 0; i < 4; i++) {
    let decoded: string
    try {
      decoded = decodeURIComponent(path)
    } catch {
      break
    }
    if (decoded === path) break
    path = decoded
  }
  path = path.toLowerCase().replace(/[\\/]+/g, '/')
  return path.length > 1 ? path.replace(/\/$/, '') : path
}

interface OperatorArea {
  prefix: string
  secret: string | undefined
  name: string
}

/**
 * Operator areas: unset secret → 404 for every spelling; otherwise the bearer token or 401. A failed token counts
 * against the client's failed authentications like a failed API key: past the limit, 429 before any comparison.
 */
export function operatorGate(config: Config, failures: FailedAuthentications): Middleware {
  const areas: OperatorArea[] = [
    { prefix: '/admin', secret: config.adminToken, name: 'admin token' },
    { prefix: '/internal', secret: config.maintenanceSecret, name: 'maintenance secret' },
    { prefix: '/metrics', secret: config.metricsToken, name: 'metrics token' },
  ]
  // Not async: nothing to do after the rest, so no suspended frame per request in flight (koa-compose turns a
  // synchronous throw into a rejection).
  return (ctx, next) => {
    // Every spelling of a path that starts with /v1/ canonicalizes under /v1: no area to check (the API's calls).
    if (ctx.path.startsWith('/v1/')) return next()
    const path = canonicalPath(ctx.path)
    const area = areas.find((a) => path === a.prefix || path.startsWith(`${a.prefix}/`))
    if (!area) return next()
    if (!area.secret) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
    return admitOperator(ctx.get('Authorization'), ctx.ip, area.secret, area.name, failures).then(() => next())
  }
}

async function admitOperator(header: string, client: string, secret: string, name: string, failures: FailedAuthentications) {
  await failures.refuseIfOver(client)
  if (bearerMatches(header, secret)) return
  await failures.record(client)
  throw new ApiError('unauthorized', `The ${name} is not valid.`)
}
