// Webhook endpoints (C17): an account's registered URLs with their event filters and signing secrets. The secret
// is shown once (at creation and at each rotation) and sealed at rest; after a rotation the previous one keeps
// signing beside the new one for ROTATION_OVERLAP_HOURS. Every change is one audit entry in its transaction.
import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Database, Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import type { SecretBox } from '../secrets.ts'
import { emitEvent } from './emit.ts'
import { EventFilter } from './types.ts'

export const ENDPOINTS_PER_ACCOUNT = 16

const Url = Type.String({
  format: 'uri',
  minLength: 8,
  maxLength: 2048,
  description: 'https and public (C8), checked at every attempt too',
})
const Events = Type.Array(EventFilter, {
  minItems: 1,
  maxItems: 20,
  uniqueItems: true,
  description: 'the types it receives, or a family such as balance.*; absent or null: every type',
})
const Description = Type.String({ maxLength: 500 })

export const EndpointInput = Type.Object(
  { url: Url, events: Type.Optional(Type.Union([Events, Type.Null()])), description: Type.Optional(Description) },
  { additionalProperties: false },
)
export const EndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Union([Events, Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
)

/** Published as components.schemas.WebhookEndpoint: never a secret. */
export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ pattern: '^we_' }),
    url: Type.String(),
    events: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every type' }),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    secretRotatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { additionalProperties: false },
)
export type WebhookEndpoint = Static<typeof WebhookEndpoint>
const Secret = Type.String({ pattern: '^whsec_', description: 'shown once: verify webhook-signature with it' })
export const WebhookEndpointCreated = Type.Composite([WebhookEndpoint, Type.Object({ secret: Secret })], { additionalProperties: false })
export const EndpointSecret = Type.Object({ secret: Secret }, { additionalProperties: false })
export const EndpointList = Type.Object({ endpoints: Type.Array(WebhookEndpoint) }, { additionalProperties: false })

interface EndpointRow {
  id: string
  url: string
  events: string[] | null
  description: string | null
  enabled: boolean
  created_at: Date
  secret_rotated_at: Date | null
}

const view = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  createdAt: new Date(r.created_at).toISOString(),
  secretRotatedAt: r.secret_rotated_at ? new Date(r.secret_rotated_at).toISOString() : null,
})

/** `whsec_` + base64 of 24 random bytes: the form Standard Webhooks libraries take as given. */
const newSecret = () => 'whsec_' + randomBytes(24).toString('base64')
const notFound = () => new ApiError('not_found', 'No such webhook endpoint.')
const target = (id: string) => ({ type: 'webhook_endpoint', id })

export async function listEndpoints(db: Query, accountId: string): Promise<WebhookEndpoint[]> {
  const rows = await db.sql<EndpointRow>(`select * from webhook_endpoints where account_id = ? order by created_at, id`, [accountId])
  return rows.map(view)
}

export async function getEndpoint(db: Query, accountId: string, id: string): Promise<WebhookEndpoint> {
  const [row] = await db.sql<EndpointRow>(`select * from webhook_endpoints where account_id = ? and id = ?`, [accountId, id])
  if (!row) throw notFound()
  return view(row)
}

export async function createEndpoint(
  db: Database,
  box: SecretBox,
  accountId: string,
  input: Static<typeof EndpointInput>,
  acting: Acting,
): Promise<Static<typeof WebhookEndpointCreated>> {
  const secret = newSecret()
  const id = 'we_' + randomBytes(8).toString('hex')
  return db.tx(async (q) => {
    // The account row's lock makes the count and the insert one step: two creations never pass 16 together.
    await q.sql(`select 1 from accounts where id = ? for no key update`, [accountId])
    const [{ n } = { n: 0 }] = await q.sql<{ n: number }>(`select count(*)::int as n from webhook_endpoints where account_id = ?`, [
      accountId,
    ])
    if (n >= ENDPOINTS_PER_ACCOUNT)
      throw new ApiError('invalid_request', `An account has at most ${ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`)
    const [row] = await q.sql<EndpointRow>(
      `insert into webhook_endpoints (id, account_id, url, events, description, secret, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [id, accountId, input.url, input.events ?? null, input.description ?? null, box.seal(secret), acting.at, acting.at],
    )
    await audit(q, acting, {
      accountId,
      action: 'webhook_endpoint.created',
      target: target(id),
      details: { url: input.url, events: input.events ?? null },
    })
    return { ...view(row!), secret }
  })
}

export async function updateEndpoint(
  db: Database,
  accountId: string,
  id: string,
  patch: Static<typeof EndpointPatch>,
  acting: Acting,
): Promise<WebhookEndpoint> {
  return db.tx(async (q) => {
    const [row] = await q.sql<EndpointRow>(
      `update webhook_endpoints set url = coalesce(?, url), events = case when ? then ? else events end,
              enabled = coalesce(?, enabled), description = case when ? then ? else description end, updated_at = ?
        where account_id = ? and id = ? returning *`,
      [
        patch.url ?? null,
        'events' in patch,
        patch.events ?? null,
        patch.enabled ?? null,
        'description' in patch,
        patch.description ?? null,
        acting.at,
        accountId,
        id,
      ],
    )
    if (!row) throw notFound()
    await audit(q, acting, { accountId, action: 'webhook_endpoint.updated', target: target(id), details: { ...patch } })
    return view(row)
  })
}

export async function deleteEndpoint(db: Database, accountId: string, id: string, acting: Acting): Promise<void> {
  await db.tx(async (q) => {
    const [row] = await q.sql<{ url: string }>(`delete from webhook_endpoints where account_id = ? and id = ? returning url`, [
      accountId,
      id,
    ])
    if (!row) throw notFound()
    await audit(q, acting, { accountId, action: 'webhook_endpoint.deleted', target: target(id), details: { url: row.url } })
  })
}

/** A new secret; the one it replaces keeps signing beside it for ROTATION_OVERLAP_HOURS. */
export async function rotateEndpointSecret(
  db: Database,
  box: SecretBox,
  accountId: string,
  id: string,
  acting: Acting,
): Promise<{ secret: string }> {
  const secret = newSecret()
  return db.tx(async (q) => {
    const [row] = await q.sql(
      `update webhook_endpoints set previous_secret = secret, secret = ?, secret_rotated_at = ?, updated_at = ?
        where account_id = ? and id = ? returning id`,
      [box.seal(secret), acting.at, acting.at, accountId, id],
    )
    if (!row) throw notFound()
    await audit(q, acting, { accountId, action: 'webhook_endpoint.secret_rotated', target: target(id) })
    return { secret }
  })
}

/** A ping event to this endpoint alone, live: it is the account's own request (audited: it sends data out). */
export async function pingEndpoint(db: Database, accountId: string, id: string, acting: Acting): Promise<{ eventId: string }> {
  return db.tx(async (q) => {
    const [row] = await q.sql(`select 1 from webhook_endpoints where account_id = ? and id = ?`, [accountId, id])
    if (!row) throw notFound()
    const eventId = await emitEvent(
      q,
      { accountId, type: 'ping', livemode: true, data: { endpointId: id, message: 'A test event sent on request.' }, endpointId: id },
      acting.at,
    )
    await audit(q, acting, { accountId, action: 'webhook_endpoint.tested', target: target(id), details: { eventId } })
    return { eventId }
  })
}
