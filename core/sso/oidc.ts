// The OpenID Connect relying party of single sign-on: authorization code flow with PKCE (S256), state and nonce,
// on openid-client, the OpenID-certified client by the author of jose and oidc-provider. It does the ID-token
// checks a hand-written client would have to get right one by one (signature against the provider's JWKS with key
// rotation, alg, iss, aud, azp, exp/iat/nbf with the kernel's clock, nonce, the issuer of the discovery document);
// with its non-repudiation checks on, the signature is verified even though the token came over the back channel.
// Every request to the provider goes through the address guard (the issuer is the customer's input): a private
// address or plain http only with CALLBACKS_ALLOW_PRIVATE, as for callbacks and file fetches.
import * as client from 'openid-client'
import type { Config } from '../config.ts'
import type { Resolver } from '../net/address-guard.ts'
import { FetchError, requestPublic } from '../net/safe-fetch.ts'

export interface ProviderSettings {
  issuer: string
  clientId: string
  clientSecret: string
}

/** What the service keeps of one sign-in between the redirect and the callback. */
export interface FlowSecrets {
  state: string
  nonce: string
  codeVerifier: string
}

/** The identity a provider vouched for. */
export interface SignedInIdentity {
  subject: string
  email: string
}

/** A refusal with a short reason for the audit log (never the token or the provider's full answer). */
export class SsoRefused extends Error {
  readonly reason: string
  constructor(reason: string, message: string) {
    super(message)
    this.reason = reason
  }
}

/** Discovery documents and key sets are reused this long (a provider's key rotation is picked up on an unknown kid). */
const METADATA_TTL_MS = 10 * 60_000

export interface OidcClient {
  /** Reads the issuer's discovery document (PUT /v1/sso checks the issuer with it). */
  discover(issuer: string): Promise<void>
  /** The provider's authorization URL for a new sign-in, and what the callback needs to check it. */
  start(settings: ProviderSettings, redirectUri: string, loginHint?: string): Promise<{ url: string; secrets: FlowSecrets }>
  /** Exchanges the code of `callbackUrl` and checks the ID token; throws SsoRefused. */
  finish(settings: ProviderSettings, callbackUrl: URL, secrets: FlowSecrets): Promise<SignedInIdentity>
}

export function oidcClient(deps: { config: Config; resolver?: Resolver | undefined; now: () => Date }): OidcClient {
  const allowPrivate = deps.config.callbacksAllowPrivate
  const cache = new Map<string, { metadata: client.ServerMetadata; jwks?: client.ExportedJWKSCache; until: number }>()

  /** Fetch API over the guarded request (openid-client calls it for discovery, the token endpoint and the JWKS). */
  const guardedFetch: client.CustomFetch = async (url, options) => {
    const headers: Record<string, string> = {}
    new Headers(options.headers).forEach((v, k) => (headers[k] = v))
    const body = bodyText(options.body)
    try {
      const res = await requestPublic(url, {
        method: options.method === 'POST' ? 'POST' : 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
        allowPrivate,
        ...(deps.resolver ? { resolver: deps.resolver } : {}),
        schemes: allowPrivate ? ['https:', 'http:'] : ['https:'],
        ...(options.signal ? { signal: options.signal } : {}),
      })
      const out = new Headers()
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v)
      return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(res.bytes), { status: res.status, headers: out })
    } catch (e) {
      if (e instanceof FetchError) throw new SsoRefused('provider_unreachable', `The identity provider could not be reached: ${e.message}.`)
      throw e
    }
  }

  const options = (): client.DiscoveryRequestOptions => ({
    [client.customFetch]: guardedFetch,
    ...(allowPrivate ? { execute: [client.allowInsecureRequests] } : {}),
  })

  async function configuration(settings: ProviderSettings): Promise<client.Configuration> {
    const skew = Math.round((deps.now().getTime() - Date.now()) / 1000) // the kernel's clock decides what has expired
    const metadata: Partial<client.ClientMetadata> = { client_secret: settings.clientSecret, [client.clockSkew]: skew }
    const cached = cache.get(settings.issuer)
    let config: client.Configuration
    if (cached && cached.until > Date.now()) {
      config = new client.Configuration(cached.metadata, settings.clientId, metadata)
      config[client.customFetch] = guardedFetch
      if (allowPrivate) client.allowInsecureRequests(config)
      client.enableNonRepudiationChecks(config)
      if (cached.jwks) client.setJwksCache(config, cached.jwks)
    } else {
      config = await client.discovery(new URL(settings.issuer), settings.clientId, metadata, undefined, options()).catch((e: unknown) => {
        throw e instanceof SsoRefused
          ? e
          : new SsoRefused('discovery_failed', `The issuer's discovery document could not be used: ${reason(e)}.`)
      })
      // The ID token's signature is checked against the provider's keys too, not only the TLS of the token request.
      client.enableNonRepudiationChecks(config)
      cache.set(settings.issuer, { metadata: config.serverMetadata(), until: Date.now() + METADATA_TTL_MS })
    }
    return config
  }

  const keepJwks = (settings: ProviderSettings, config: client.Configuration) => {
    const entry = cache.get(settings.issuer)
    const jwks = client.getJwksCache(config)
    if (entry && jwks) entry.jwks = jwks
  }

  return {
    async discover(issuer) {
      cache.delete(issuer)
      await configuration({ issuer, clientId: 'discovery', clientSecret: 'discovery' })
    },
    async start(settings, redirectUri, loginHint) {
      const config = await configuration(settings)
      const secrets: FlowSecrets = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      }
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email',
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256',
        state: secrets.state,
        nonce: secrets.nonce,
        ...(loginHint ? { login_hint: loginHint } : {}),
      })
      return { url: url.href, secrets }
    },
    async finish(settings, callbackUrl, secrets) {
      const config = await configuration(settings)
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: secrets.codeVerifier,
          expectedState: secrets.state,
          expectedNonce: secrets.nonce,
          idTokenExpected: true,
        })
      } catch (e) {
        if (e instanceof SsoRefused) throw e
        throw new SsoRefused(refusalCode(e), `The identity provider's answer was refused: ${reason(e)}.`)
      } finally {
        keepJwks(settings, config)
      }
      const claims = tokens.claims()
      if (!claims) throw new SsoRefused('no_id_token', 'The identity provider sent no ID token.')
      // A provider that keeps the email out of the ID token (as the spec has it when an access token can fetch it)
      // answers it at its userinfo endpoint, for the same subject.
      let vouched: Record<string, unknown> = claims
      if (typeof claims.email !== 'string') {
        vouched = await client.fetchUserInfo(config, tokens.access_token, claims.sub).catch((e: unknown): never => {
          throw new SsoRefused(refusalCode(e), `The identity provider's userinfo was refused: ${reason(e)}.`)
        })
      }
      const email = typeof vouched.email === 'string' ? vouched.email.toLowerCase() : ''
      if (!email || vouched.email_verified === false)
        throw new SsoRefused('no_verified_email', 'The identity provider did not vouch for an email address.')
      return { subject: claims.sub, email }
    },
  }
}

/** A request body as the guarded request sends it (openid-client sends forms as URLSearchParams). */
function bodyText(body: client.FetchBody): string | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof URLSearchParams) return body.toString()
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return Buffer.from(body as ArrayBuffer).toString()
  throw new Error('a streamed request body is not sent to an identity provider')
}

/** A short, stable reason for the audit log: the library's error code and the claim or check it names. */
function refusalCode(e: unknown): string {
  // The library wraps the protocol error; the claim a check failed on is on the innermost cause.
  let claim = ''
  let code = ''
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    const err = c as { code?: unknown; error?: unknown; claim?: unknown }
    if (typeof err.error === 'string') return `provider_error:${err.error.slice(0, 40)}` // the token endpoint refused (a replayed code: invalid_grant)
    if (!code && typeof err.code === 'string') code = err.code
    if (typeof err.claim === 'string') claim = `:${err.claim}`
  }
  return `${code || 'invalid_response'}${claim}`.slice(0, 80)
}

function reason(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 200)
}
