// Stage 4 (C1): headers and body. Content-Type (415), size (413), JSON syntax (400 invalid_json),
// nesting depth (400 invalid_request naming the path, before any code walks the body recursively),
// Idempotency-Key and Service-Dry-Run formats, then the endpoint's schema (400 invalid_request + details).
import bodyParser from 'koa-bodyparser'
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'
import { claim, idempotencyKey, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import { AddressRefused, resolvePublicTarget } from '../net/address-guard.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { formatErrors } from '../validation.ts'

export interface CallRequest {
  input: Record<string, unknown>
  async: boolean
  callbackUrl: string | null
  idempotency: IdempotencyClaim | undefined
}

export type DryRunMode = 'live' | 'dry' | 'invalid'

/** Service-Dry-Run: 1 or true asks for a dry run, 0 or false says no (as if absent); anything else is a 400. */
export function dryRunMode(ctx: Context): DryRunMode {
  const raw = ctx.headers['service-dry-run']
  if (raw === undefined || (typeof raw === 'string' && /^(0|false)$/i.test(raw))) return 'live'
  return typeof raw === 'string' && /^(1|true)$/i.test(raw) ? 'dry' : 'invalid'
}

/** Deepest nesting a request body may have; the root object is level 1. */
export const MAX_JSON_DEPTH = 64

/** The JSON Pointer of the first value nested deeper than `max`, or null; iterative, so any depth is safe. */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): string | null {
  if (!value || typeof value !== 'object') return null
  const stack: Array<[unknown, string, number]> = [[value, '', 1]]
  while (stack.length) {
    const [v, path, depth] = stack.pop()!
    if (depth > max) return path
    for (const [k, child] of Object.entries(v as object)) {
      if (child && typeof child === 'object') stack.push([child, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1])
    }
  }
  return null
}

export function makeBodyReader(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limitBytes}b`,
    strict: false,
    onerror: (err: Error & { status?: number }) => {
      if (err.status === 413) throw new ApiError('payload_too_large', `The body is larger than ${limitBytes} bytes.`)
      throw new ApiError('invalid_json', 'The body is not valid JSON.')
    },
  })
  return async (ctx: Context) => {
    await parse(ctx, async () => {})
    const deep = tooDeep(ctx.request.body)
    if (deep) {
      throw new ApiError('invalid_request', `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, [
        { path: deep.length > 200 ? `${deep.slice(0, 200)}…` : deep, message: `nested deeper than ${MAX_JSON_DEPTH} levels` },
      ])
    }
  }
}

/** The JSON body of a management route (not a capability), checked by `check`: 415 for another type, then the body limit. */
export function jsonBodyReader(limitBytes: number) {
  const readBody = makeBodyReader(limitBytes)
  return async <T>(ctx: Context, check: (b: unknown) => T): Promise<T> => {
    if (ctx.request.length && !ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'Send JSON.')
    await readBody(ctx)
    return check(ctx.request.body ?? {})
  }
}

export async function readRequest(
  ctx: Context,
  cap: Capability,
  services: Services,
  readBody: (ctx: Context) => Promise<unknown>,
  mode: DryRunMode,
): Promise<CallRequest> {
  if (!ctx.is('application/json'))
    throw new ApiError('unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".')
  await readBody(ctx)
  const key = idempotencyKey(ctx)
  if (mode === 'invalid') {
    throw new ApiError('invalid_request', 'Service-Dry-Run must be "1" or "true" (a dry run), or "0" or "false" (none).', [
      { path: 'header:Service-Dry-Run', message: 'must be 1, true, 0 or false' },
    ])
  }
  const body = ctx.request.body
  if (!cap.validateRequest(body)) {
    throw new ApiError('invalid_request', 'The body does not match the schema of this endpoint.', formatErrors(cap.validateRequest.errors))
  }
  const { async = false, callbackUrl, ...input } = body as Record<string, unknown> & { async?: boolean; callbackUrl?: string }
  const problems = (await cap.check?.(input)) ?? []
  if (problems.length) throw new ApiError('invalid_request', 'The body does not match the rules of this endpoint.', problems)
  if (async && !cap.async) {
    throw new ApiError('invalid_request', `/v1/${cap.name} does not run asynchronously.`, [
      { path: '/async', message: 'not supported on this endpoint' },
    ])
  }
  // callbackUrl is ignored unless async is true (spec 6.4.7).
  const callback = async && callbackUrl ? callbackUrl : null
  if (callback) await checkCallbackUrl(callback, services)
  return {
    input,
    async,
    callbackUrl: callback,
    idempotency: key === undefined ? undefined : claim(key, ctx.method, ctx.path, body),
  }
}

/** A callbackUrl must be a public https address (or any, with CALLBACKS_ALLOW_PRIVATE): 400 invalid_callback_url. */
export async function checkCallbackUrl(url: string, services: Services): Promise<void> {
  try {
    await resolvePublicTarget(new URL(url), {
      allowPrivate: services.config.callbacksAllowPrivate,
      resolver: services.resolver,
      schemes: ['https:'],
    })
  } catch (e) {
    if (!(e instanceof AddressRefused)) throw e
    // One answer for "does not resolve" and "resolves to a private address", so callers cannot probe internal names.
    const why = e.reason === 'address' || e.reason === 'unresolvable' ? 'the host is not a reachable public address' : e.message
    throw new ApiError(
      'invalid_callback_url',
      `callbackUrl must be a public https URL: ${why}. (A server run for development can allow private addresses and http with CALLBACKS_ALLOW_PRIVATE=true.)`,
      [{ path: '/callbackUrl', message: why }],
    )
  }
}
