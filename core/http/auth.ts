// Stage 1 (C9): `Authorization: Bearer ksk_live_…` (or ksk_test_…) (the scheme is case-insensitive, RFC 9110), looked up by
// its SHA-256. A client whose keys keep failing is refused for a while (429) before any lookup.
import type { Context } from 'koa'
import type { Caller, KeyLookup } from './caller.ts'
import { ApiError } from '../errors.ts'
import { readMetadata } from './metadata.ts'
import { secretsEqual } from '../secrets.ts'

/** What an API key looks like (accounts.ts mints them): anything else is not looked up by knownCaller. */
const API_KEY = /^ksk_(?:live|test)_/

export function bearerToken(header: string): string | null {
  return /^bearer +([!-~]{1,200}) *$/i.exec(header)?.[1] ?? null
}

/** Constant-time comparison of the bearer token in `header` with an operator secret. */
export function bearerMatches(header: string, secret: string): boolean {
  const token = bearerToken(header)
  return token !== null && secretsEqual(token, secret)
}

export async function authenticate(ctx: Context, keys: KeyLookup): Promise<Caller> {
  const header = ctx.get('Authorization')
  const token = bearerToken(header)
  const caller = token ? await keys.lookup(token, ctx.ip) : null
  if (!caller)
    throw new ApiError('unauthorized', header ? 'The API key is not valid.' : 'Send your API key as "Authorization: Bearer <key>".')
  identify(ctx, caller, token!)
  ctx.state.metadata = readMetadata(ctx.headers['service-metadata']) // the caller's tags, or 400
  return caller
}

/**
 * The key of a request no handler authenticated (a 404, a 405), for the request log: its account sees every
 * call its keys made. Null for no API key (an operator token is not looked up), an unknown one, or a client
 * throttled for failed keys.
 */
export async function knownCaller(ctx: Context, keys: KeyLookup): Promise<Caller | null> {
  const token = bearerToken(ctx.get('Authorization'))
  const caller = token && API_KEY.test(token) ? await keys.lookup(token, ctx.ip).catch(() => null) : null
  if (!caller) return null
  identify(ctx, caller, token!)
  try {
    ctx.state.metadata = readMetadata(ctx.headers['service-metadata'])
  } catch {
    // the answer is already a refusal; malformed tags are left off its row
  }
  return caller
}

/** For the access line and the request log: the account, the key and its public prefix, never the key itself. */
function identify(ctx: Context, caller: Caller, token: string): void {
  ctx.state.accountId = caller.accountId
  ctx.state.keyId = caller.keyId
  ctx.state.keyMode = caller.mode
  ctx.state.keyPrefix = token.slice(0, 12)
}
