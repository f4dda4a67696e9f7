// An account's single sign-on settings (C18): GET/PUT/DELETE /v1/sso and the dashboard's page. The client secret
// is sealed (core/secrets.ts) and never leaves the service; each email domain belongs to one account's provider;
// `enforced` refuses sign-in links for those domains and ends the link sessions of their people at once.
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { Services } from '../services.ts'
import { JIT_ROLES, type Role } from '../roles.ts'
import { SsoRefused } from './oidc.ts'

const Domain = Type.String({
  minLength: 3,
  maxLength: 253,
  pattern: '^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$',
  description: 'lower-case, e.g. example.com',
})
const JitRole = Type.Union(
  JIT_ROLES.map((r) => Type.Literal(r)),
  { description: 'the role of people who arrive through the provider' },
)

/** PUT /v1/sso. `clientSecret` may be left out to keep the stored one. */
export const SsoInput = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      maxLength: 500,
      description: 'the provider’s issuer; its /.well-known/openid-configuration is read',
    }),
    clientId: Type.String({ minLength: 1, maxLength: 255 }),
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'write-only; encrypted at rest' })),
    domains: Type.Array(Domain, { minItems: 1, maxItems: 50, uniqueItems: true }),
    defaultRole: JitRole,
    enforced: Type.Boolean({ description: 'refuse sign-in links for these domains: their people sign in through the provider only' }),
  },
  { additionalProperties: false },
)
export type SsoInput = Static<typeof SsoInput>

/** GET /v1/sso; published as components.schemas.SsoSettings. */
export const SsoSettings = Type.Object(
  {
    issuer: Type.String(),
    clientId: Type.String(),
    clientSecretSet: Type.Literal(true, { description: 'the secret itself is never returned' }),
    domains: Type.Array(Type.String()),
    defaultRole: JitRole,
    enforced: Type.Boolean(),
    redirectUri: Type.String({ description: 'register this as the client’s redirect URI at the provider' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)
export type SsoSettings = Static<typeof SsoSettings>

/** Where providers send the browser back: the dashboard's public origin (DASHBOARD_URL). */
export const ssoRedirectUri = (origin: string) => `${origin}/dashboard/sso/callback`

interface Row {
  issuer: string
  client_id: string
  client_secret: string
  default_role: Exclude<Role, 'owner'>
  enforced: boolean
  updated_at: string
  domains: string[]
}

async function settingsRow(db: Query, accountId: string): Promise<Row | null> {
  const [row] = await db.sql<Row>(
    `select s.issuer, s.client_id, s.client_secret, s.default_role, s.enforced, s.updated_at,
            coalesce((select array_agg(d.domain order by d.domain) from sso_domains d where d.account_id = s.account_id), '{}') as domains
       from sso_settings s where s.account_id = ?`,
    [accountId],
  )
  return row ?? null
}

const view = (r: Row, origin: string): SsoSettings => ({
  issuer: r.issuer,
  clientId: r.client_id,
  clientSecretSet: true,
  domains: r.domains,
  defaultRole: r.default_role,
  enforced: r.enforced,
  redirectUri: ssoRedirectUri(origin),
  updatedAt: new Date(r.updated_at).toISOString(),
})

export async function getSso(db: Query, accountId: string, origin: string): Promise<SsoSettings | null> {
  const row = await settingsRow(db, accountId)
  return row ? view(row, origin) : null
}

/** The provider settings of an account, its secret opened (sign-ins only). */
export async function providerOf(
  services: Services,
  accountId: string,
): Promise<{ issuer: string; clientId: string; clientSecret: string; domains: string[]; defaultRole: Exclude<Role, 'owner'> } | null> {
  const row = await settingsRow(services.db, accountId)
  return row
    ? {
        issuer: row.issuer,
        clientId: row.client_id,
        clientSecret: services.secrets.open(row.client_secret),
        domains: row.domains,
        defaultRole: row.default_role,
      }
    : null
}

/** Creates or replaces the settings after reading the issuer's discovery document (a typo fails here, not at sign-in). */
export async function putSso(services: Services, accountId: string, input: SsoInput, acting: Acting, origin: string): Promise<SsoSettings> {
  const issuer = input.issuer.replace(/\/+$/, '')
  try {
    await services.oidc.discover(issuer)
  } catch (e) {
    if (!(e instanceof SsoRefused)) throw e
    throw new ApiError('invalid_request', e.message, [{ path: '/issuer', message: e.reason }])
  }
  try {
    await services.db.tx(async (q) => {
      const before = await settingsRow(q, accountId)
      if (!before && !input.clientSecret)
        throw new ApiError('invalid_request', 'The first settings need the client secret.', [
          { path: '/clientSecret', message: 'required' },
        ])
      const secret = input.clientSecret ? services.secrets.seal(input.clientSecret) : before!.client_secret
      await q.sql(
        `insert into sso_settings (account_id, issuer, client_id, client_secret, default_role, enforced, updated_at) values (?, ?, ?, ?, ?, ?, ?)
         on conflict (account_id) do update set issuer = excluded.issuer, client_id = excluded.client_id, client_secret = excluded.client_secret,
           default_role = excluded.default_role, enforced = excluded.enforced, updated_at = excluded.updated_at`,
        [accountId, issuer, input.clientId, secret, input.defaultRole, input.enforced, acting.at],
      )
      await q.sql(`delete from sso_domains where account_id = ?`, [accountId])
      await q.sql(`insert into sso_domains (domain, account_id) select unnest(?::text[]), ?`, [input.domains, accountId])
      let sessionsEnded = 0
      if (input.enforced) {
        // People of these domains now sign in through the provider only: their link sessions end now.
        const ended = await q.sql(
          `delete from dashboard_sessions where sso_account_id is distinct from ? and split_part(email, '@', 2) = any(?::text[]) returning 1`,
          [accountId, input.domains],
        )
        sessionsEnded = ended.length
      }
      await audit(q, acting, {
        accountId,
        action: 'sso.updated',
        target: { type: 'sso', id: accountId },
        details: {
          issuer,
          clientId: input.clientId,
          domains: input.domains,
          defaultRole: input.defaultRole,
          enforced: input.enforced,
          clientSecretChanged: Boolean(input.clientSecret),
          ...(before
            ? { before: { issuer: before.issuer, clientId: before.client_id, domains: before.domains, enforced: before.enforced } }
            : {}),
          ...(sessionsEnded ? { sessionsEnded } : {}),
        },
      })
    })
  } catch (e) {
    if ((e as { code?: string; constraint?: string }).code === '23505')
      throw new ApiError('invalid_request', 'One of these domains already signs in through another account’s provider.', [
        { path: '/domains', message: 'claimed by another account' },
      ])
    throw e
  }
  return (await getSso(services.db, accountId, origin))!
}

export async function removeSso(db: Database, accountId: string, acting: Acting): Promise<void> {
  await db.tx(async (q) => {
    const before = await settingsRow(q, accountId)
    if (!before) throw new ApiError('not_found', 'Single sign-on is not set up for this account.')
    await q.sql(`delete from sso_settings where account_id = ?`, [accountId])
    await audit(q, acting, {
      accountId,
      action: 'sso.removed',
      target: { type: 'sso', id: accountId },
      details: { issuer: before.issuer, domains: before.domains },
    })
  })
}

/** The account whose provider an email's domain signs in through, if any. */
export async function ssoAccountFor(db: Query, email: string): Promise<{ accountId: string; enforced: boolean } | null> {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
  const [row] = await db.sql<{ account_id: string; enforced: boolean }>(
    `select d.account_id, s.enforced from sso_domains d join sso_settings s on s.account_id = d.account_id where d.domain = ?`,
    [domain],
  )
  return row ? { accountId: row.account_id, enforced: row.enforced } : null
}
