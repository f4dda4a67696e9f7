// What a key may do (C18), checked right after authentication and before anything is read, held or charged: a
// refusal is 403 permission_denied naming what was missing, free, and listed in the request log like any refusal.
// The key's scope comes with the cached key (core/accounts/key-cache.ts KeyCache), so the check costs no query.
import type { Context, Middleware } from 'koa'
import type { Caller, KeyLookup } from './caller.ts'
import { ApiError } from '../errors.ts'
import { keyMay, type KeyAccess } from '../roles.ts'
import { authenticate } from './auth.ts'

/** A route guard that says what it guards: the role × action tests read `access` off each route's middleware. */
export type AccessGuard = Middleware & { access: KeyAccess }

const ACCESS_WORDS: Record<KeyAccess, string> = {
  read: 'read the account’s data',
  call: 'call capabilities',
  manage: 'manage the account (keys, members, invitations, audit log, single sign-on)',
}

export function requireAccess(caller: Caller, access: KeyAccess): void {
  if (!keyMay(caller.permissions, access))
    throw new ApiError(
      'permission_denied',
      `This key (permissions: ${caller.permissions}) may not ${ACCESS_WORDS[access]}; it needs ${access === 'manage' ? '"all"' : access === 'call' ? '"call" or "all"' : 'any permissions'}.`,
    )
  // A test key is for experiments: it never changes who or what can spend the account's credits.
  if (access === 'manage' && caller.mode === 'test')
    throw new ApiError('permission_denied', 'A test key may not manage the account; use a live key with permissions "all".')
}

/** A capability call: the key needs `call` and, when it has an allowlist, the capability on it. */
export function requireCapability(caller: Caller, capability: string): void {
  requireAccess(caller, 'call')
  if (caller.capabilities && !caller.capabilities.has(capability))
    throw new ApiError(
      'permission_denied',
      `This key may call only ${[...caller.capabilities].sort().join(', ')}; "${capability}" is not on its list.`,
    )
}

/** The middleware of a /v1 route: authenticates, checks `access`, leaves the caller in ctx.state.caller. */
export function keyAccess(keys: KeyLookup, access: KeyAccess): AccessGuard {
  const guard: Middleware = async (ctx, next) => {
    const caller = await authenticate(ctx, keys)
    requireAccess(caller, access)
    ctx.state.caller = caller
    await next()
  }
  return Object.assign(guard, { access })
}

export const callerOf = (ctx: Context): Caller => ctx.state.caller as Caller
