// One single sign-on, from the sign-in form to the provider and back (C18). The flow row keeps the state (hashed),
// the browser it started in (the hash of a cookie: a callback from another browser is refused, so nobody can be
// signed in to someone else's session), the PKCE verifier (sealed) and the nonce, for 10 minutes, once. A refused
// callback is audited in the account whose provider it came from, with the reason.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { audit, type Acting } from '../audit/audit.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import type { Role } from '../roles.ts'
import { SsoRefused } from './oidc.ts'
import { providerOf, ssoAccountFor, ssoRedirectUri } from './settings.ts'

export const FLOW_TTL_MS = 10 * 60_000
/** The cookie that binds a flow to the browser that started it (HttpOnly, path /dashboard/sso). */
export const FLOW_COOKIE = 'dash_sso'

const sha256 = (s: string) => createHash('sha256').update(s).digest()

/** Starts a sign-in for `email`: the provider's URL to send the browser to, and the browser-binding cookie's value. */
export async function startSso(services: Services, email: string, origin: string): Promise<{ url: string; browser: string }> {
  const target = await ssoAccountFor(services.db, email)
  const provider = target && (await providerOf(services, target.accountId))
  if (!target || !provider) throw new ApiError('not_found', `No single sign-on is set up for ${email.slice(email.lastIndexOf('@') + 1)}.`)
  let started: Awaited<ReturnType<Services['oidc']['start']>>
  try {
    started = await services.oidc.start(provider, ssoRedirectUri(origin), email)
  } catch (e) {
    if (!(e instanceof SsoRefused)) throw e
    throw new ApiError('service_unavailable', e.message, undefined, { 'Retry-After': '30' })
  }
  const browser = randomBytes(32).toString('base64url')
  await services.db.sql(
    `insert into sso_flows (state_hash, browser_hash, account_id, code_verifier, nonce, expires_at) values (?, ?, ?, ?, ?, ?)`,
    [
      sha256(started.secrets.state),
      sha256(browser),
      target.accountId,
      services.secrets.seal(started.secrets.codeVerifier),
      started.secrets.nonce,
      new Date(services.now().getTime() + FLOW_TTL_MS),
    ],
  )
  return { url: started.url, browser }
}

export type SsoOutcome = { ok: true; accountId: string; memberId: string; email: string; role: Role } | { ok: false; message: string }

/**
 * The provider's redirect back: refused (and audited, when the flow names an account) unless the state is one this
 * browser started, unused and fresh, and the code and the ID token pass every check. A person of the account's
 * domains who is not yet a member becomes one with the default role (just in time).
 */
export async function finishSso(
  services: Services,
  callbackUrl: URL,
  browser: string | undefined,
  request: { requestId: string; ip: string },
): Promise<SsoOutcome> {
  const { db } = services
  const at = services.now()
  const state = callbackUrl.searchParams.get('state') ?? ''
  const [flow] = state
    ? await db.sql<{
        account_id: string
        browser_hash: Buffer
        code_verifier: string
        nonce: string
        expires_at: string
        used_at: string | null
      }>(`select account_id, browser_hash, code_verifier, nonce, expires_at, used_at from sso_flows where state_hash = ?`, [sha256(state)])
    : []
  if (!flow) return { ok: false, message: 'This sign-in is not one this service started. Start again from the sign-in page.' }
  const system: Acting = { actor: { type: 'system', id: null, role: 'owner' }, requestId: request.requestId, ip: request.ip, at }
  const refuse = async (reason: string, message: string, email?: string): Promise<SsoOutcome> => {
    await audit(db, system, {
      accountId: flow.account_id,
      action: 'sign_in.failed',
      target: { type: 'sso', id: flow.account_id },
      details: { method: 'sso', reason, ...(email ? { email } : {}) },
    })
    return { ok: false, message }
  }
  if (!browser || !sha256(browser).equals(flow.browser_hash))
    return refuse('browser_mismatch', 'This sign-in was started in another browser. Start again from the sign-in page.')
  const [claimed] = await db.sql(`update sso_flows set used_at = ? where state_hash = ? and used_at is null returning 1`, [
    at,
    sha256(state),
  ])
  if (!claimed) return refuse('replayed', 'This sign-in response was already used. Start again from the sign-in page.')
  if (new Date(flow.expires_at) <= at) return refuse('expired_flow', 'This sign-in took too long. Start again from the sign-in page.')
  const error = callbackUrl.searchParams.get('error')
  if (error) return refuse(`provider_error:${error.slice(0, 40)}`, 'The identity provider did not sign you in.')
  const provider = await providerOf(services, flow.account_id)
  if (!provider) return refuse('sso_removed', 'Single sign-on is no longer set up for this account.')
  let identity: { email: string }
  try {
    identity = await services.oidc.finish(provider, callbackUrl, {
      state,
      nonce: flow.nonce,
      codeVerifier: services.secrets.open(flow.code_verifier),
    })
  } catch (e) {
    if (!(e instanceof SsoRefused)) throw e
    return refuse(e.reason, 'The identity provider’s answer could not be verified, so you are not signed in.')
  }
  const domain = identity.email.slice(identity.email.lastIndexOf('@') + 1)
  if (!provider.domains.includes(domain))
    return refuse('domain_not_allowed', `${identity.email} is not an address of this account’s single sign-on domains.`, identity.email)
  const member = await db.tx(async (q) => {
    const [existing] = await q.sql<{ id: string; role: Role }>(`select id, role from members where account_id = ? and email = ?`, [
      flow.account_id,
      identity.email,
    ])
    if (existing) return existing
    const id = randomUUID()
    await q.sql(`insert into members (id, account_id, email, role, created_at) values (?, ?, ?, ?, ?)`, [
      id,
      flow.account_id,
      identity.email,
      provider.defaultRole,
      at,
    ])
    await audit(q, system, {
      accountId: flow.account_id,
      action: 'member.added',
      target: { type: 'member', id },
      details: { email: identity.email, role: provider.defaultRole, via: 'sso' },
    })
    return { id, role: provider.defaultRole as Role }
  })
  return { ok: true, accountId: flow.account_id, memberId: member.id, email: identity.email, role: member.role }
}
