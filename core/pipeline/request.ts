// Stage 4 (C1): headers and body. Content-Type (415), then the body as core/http/body.ts reads it (size 413, JSON
// syntax 400 invalid_json, nesting depth), Idempotency-Key and Service-Dry-Run formats, then the endpoint's schema
// (400 invalid_request + details).
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'
import { claim, idempotencyKey, type IdempotencyClaim } from '../idempotency/idempotency.ts'
import { AddressRefused, resolvePublicTarget } from '../net/address-guard.ts'
import type { Capability } from '../run/registry.ts'
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

async function checkCallbackUrl(url: string, services: Services): Promise<void> {
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
