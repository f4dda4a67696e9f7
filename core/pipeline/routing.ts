// Routing rules that authorization must not depend on (issue 12). Every router is case-sensitive and
// strict, so a route answers to one spelling only; and the operator areas are guarded by one app-level
// middleware that runs before any router, on the path as a router could ever read it (percent-decoded,
// lower-cased, slashes collapsed). A route added under /admin, /internal or /metrics cannot miss its token.
import Router from '@koa/router'
import type { Middleware } from 'koa'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { bearerMatches } from './auth.ts'

/**
 * allowedMethods() options for every router: a known method a route lacks, and a method no router implements
 * (TRACE, PROPFIND, MKCOL …, which Node parses), are both 405 method_not_allowed with the C2 body. Without
 * `notImplemented` the router throws its own HttpError, which the error handler can only call a bug (500).
 */
export const METHOD_REFUSALS = {
  throw: true,
  methodNotAllowed: () => new ApiError('method_not_allowed', 'This route does not accept that method.'),
  notImplemented: () => new ApiError('method_not_allowed', 'This method is not supported.'),
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

/** Operator areas: unset secret → 404 for every spelling; otherwise the bearer token or 401. */
export function operatorGate(config: Config): Middleware {
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
    if (area) {
      if (!area.secret) throw new ApiError('not_found', `No route for ${ctx.method} ${ctx.path}.`)
      if (!bearerMatches(ctx.get('Authorization'), area.secret)) throw new ApiError('unauthorized', `The ${area.name} is not valid.`)
    }
    return next()
  }
}
