// Stage 1 (C9): `Authorization: Bearer ksk_live_…`, looked up by its SHA-256.
import type { Context } from 'koa'
import type { Caller, KeyCache } from '../accounts/accounts.ts'
import { ApiError } from '../errors.ts'

export async function authenticate(ctx: Context, keys: KeyCache): Promise<Caller> {
  const header = ctx.get('Authorization')
  const match = /^Bearer ([!-~]{1,200})$/.exec(header)
  const caller = match ? await keys.lookup(match[1]!) : null
  if (!caller) throw new ApiError('unauthorized', header ? 'The API key is not valid.' : 'Send your API key as "Authorization: Bearer <key>".')
  // For the access line: the account and the key's public prefix (as GET /v1/account lists it), never the key.
  ctx.state.accountId = caller.accountId
  ctx.state.keyPrefix = match![1]!.slice(0, 12)
  return caller
}
