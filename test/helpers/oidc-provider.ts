// A real OpenID provider for tests: the `oidc-provider` package on loopback, with its development login and
// consent forms (any login is an email the provider vouches for), PKCE required, and a signing key the test holds,
// so a test can also re-sign a token the provider issued with one claim changed (a forged answer that only the
// relying party's own checks can catch). `forge` rewrites the next token endpoint answers while it is set.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose'
import Provider from 'oidc-provider'

export interface TestProvider {
  issuer: string
  /** Requests the provider received, by path (discovery, jwks, token: the relying party's; auth, interaction: the browser's). */
  requests: string[]
  /** While set, each token endpoint answer's id_token is replaced by forge(claims) re-signed with the provider's key. */
  forge: ((claims: Record<string, unknown>) => Record<string, unknown>) | null
  /** Sign forged tokens with a key the provider never published (a forged signature). */
  strangerKey: boolean
  close(): Promise<void>
}

export async function startTestProvider(
  t: { teardown(fn: () => unknown): void },
  clients: Array<{ client_id: string; client_secret: string; redirect_uris: string[] }>,
): Promise<TestProvider> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const stranger = (await generateKeyPair('RS256')).privateKey
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'] })),
    jwks: { keys: [jwk] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: sub, email_verified: true }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['test-provider-cookie-key'] },
    ttl: { IdToken: 3600, AccessToken: 3600, AuthorizationCode: 60, Session: 3600, Interaction: 600, Grant: 3600 },
  })
  const state: TestProvider = {
    issuer,
    requests: [],
    forge: null,
    strangerKey: false,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  provider.use(async (ctx, next) => {
    state.requests.push(ctx.path)
    await next()
    const body = ctx.body as { id_token?: string } | undefined
    if (ctx.path === '/token' && state.forge && body?.id_token) {
      const claims = state.forge({ ...decodeJwt(body.id_token) })
      ctx.body = {
        ...body,
        id_token: await new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
          .sign(state.strangerKey ? stranger : privateKey),
      }
    }
  })
  const handle = provider.callback()
  server.on('request', (req, res) => void handle(req, res))
  t.teardown(() => {
    server.closeAllConnections()
    return state.close()
  })
  return state
}
