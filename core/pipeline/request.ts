// Stage 4 (C1): headers and body. Content-Type (415), size (413), JSON syntax (400 invalid_json),
// nesting depth (400 invalid_request naming the path, before any code walks the body recursively),
// Idempotency-Key and Service-Dry-Run formats, then the endpoint's schema (400 invalid_request + details).
import { createHash } from 'node:crypto'
import bodyParser from 'koa-bodyparser'
import type { Context } from 'koa'
import { ApiError } from '../errors.ts'
import { AddressRefused, resolvePublicTarget } from '../net/address-guard.ts'
import type { Capability } from '../registry.ts'
import type { Services } from '../services.ts'
import { formatErrors } from '../validation.ts'

export interface CallRequest {
  input: Record<string, unknown>
  async: boolean
  callbackUrl: string | null
  idempotency?: { key: string; fingerprint: Buffer }
}

export type DryRunMode = 'live' | 'dry' | 'invalid'

export function dryRunMode(ctx: Context): DryRunMode {
  const raw = ctx.headers['service-dry-run']
  if (raw === undefined) return 'live'
  return typeof raw === 'string' && /^(1|true)$/i.test(raw) ? 'dry' : 'invalid'
}

const IDEMPOTENCY_KEY = /^[!-~]{1,128}$/

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
  const rawKey = ctx.headers['idempotency-key']
  if (rawKey !== undefined && (typeof rawKey !== 'string' || !IDEMPOTENCY_KEY.test(rawKey))) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 128 printable ASCII characters without spaces.', [
      { path: 'header:Idempotency-Key', message: 'must match ^[!-~]{1,128}$' },
    ])
  }
  if (mode === 'invalid') {
    throw new ApiError('invalid_request', 'Service-Dry-Run must be "1" or "true".', [
      { path: 'header:Service-Dry-Run', message: 'must be 1 or true' },
    ])
  }
  const body = ctx.request.body as unknown
  if (!cap.validateRequest(body)) {
    throw new ApiError('invalid_request', 'The body does not match the schema of this endpoint.', formatErrors(cap.validateRequest.errors))
  }
  const { async = false, callbackUrl, ...input } = body as Record<string, unknown> & { async?: boolean; callbackUrl?: string }
  const problems = cap.check?.(input as never) ?? []
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
    idempotency: typeof rawKey === 'string' ? { key: rawKey, fingerprint: fingerprint(ctx.method, ctx.path, body) } : undefined,
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
    throw new ApiError('invalid_callback_url', `callbackUrl must be a public https URL: ${why}`, [{ path: '/callbackUrl', message: why }])
  }
}

/** C5: SHA-256 of method, path and the canonical JSON of the body (sorted keys, no whitespace). */
export function fingerprint(method: string, path: string, body: unknown): Buffer {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body)}`)
    .digest()
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}
