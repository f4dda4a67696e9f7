// Stage 1 (C9): `Authorization: Bearer ksk_live_…` (or ksk_test_…) (the scheme is case-insensitive, RFC 9110), looked up by
// its SHA-256. A client whose keys keep failing is refused for a while (429) before any lookup.
import type { Context } from 'koa'
import type { Caller, KeyCache } from '../accounts/accounts.ts'
import { ApiError } from '../errors.ts'
import { secretsEqual } from '../secrets.ts'

export function bearerToken(header: string): string | null {
  return /^bearer +([!-~]{1,200}) *$/i.exec(header)?.[1] ?? null
}

/** Constant-time comparison of the bearer token in `header` with an operator secret. */
export function bearerMatches(header: string, secret: string): boolean {
  const token = bearerToken(header)
  return token !== null && secretsEqual(token, secret)
}

export async function authenticate(ctx: Context, keys: KeyCache): Promise<Caller> {
  const header = ctx.get('Authorization')
  const token = bearerToken(header)
  const caller = token ? await keys.lookup(token, ctx.ip) : null
  if (!caller)
    throw new ApiError('unauthorized', header ? 'The API key is not valid.' : 'Send your API key as "Authorization: Bearer <key>".')
  // For the access line and the request log: the account, the key and its public prefix, never the key itself.
  ctx.state.accountId = caller.accountId
  ctx.state.keyId = caller.keyId
  ctx.state.keyMode = caller.mode
  ctx.state.keyPrefix = token!.slice(0, 12)
  return caller
}
