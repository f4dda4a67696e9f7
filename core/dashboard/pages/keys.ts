// API keys: create (a live key's secret shown once), show a test key again, revoke, permissions and a capability
// allowlist per key, per-key monthly caps (Team plan), and the test key /docs "Try it out" uses.
import type Router from '@koa/router'
import { getAccount, type Plan } from '../../accounts/accounts.ts'
import { createKey, openTestKey, revokeKey, updateKey } from '../../accounts/keys.ts'
import { checkScope } from '../../accounts/key-routes.ts'
import { audit } from '../../audit/audit.ts'
import { ApiError } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { KEY_PERMISSIONS, roleMay, type KeyPermission } from '../../roles.ts'
import { monthSpends } from '../../wallet/wallet.ts'
import { credits, when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface KeyRow {
  id: string
  prefix: string
  name: string | null
  mode: 'live' | 'test'
  permissions: KeyPermission
  capabilities: string[] | null
  /** A test key the dashboard can show again (sealed). */
  revealable: boolean
  monthlySpendCap: number | null
  monthSpend: number
  createdAt: string
  revokedAt: string | null
}

/** The account's keys, newest first, with this month's spend (the usage and requests filters list them too). */
export async function keyRows(services: Services, accountId: string): Promise<KeyRow[]> {
  const listed = services.db.sql<{
    id: string
    prefix: string
    name: string | null
    mode: 'live' | 'test'
    permissions: KeyPermission
    capabilities: string[] | null
    revealable: boolean
    monthly_spend_cap: string | null
    created_at: string
    revoked_at: string | null
  }>(
    `select id, prefix, name, mode, permissions, capabilities, sealed_key is not null as revealable, monthly_spend_cap,
            created_at, revoked_at from api_keys where account_id = ? order by created_at desc`,
    [accountId],
  )
  const [rows, spends] = await Promise.all([listed, monthSpends(services.db, accountId, services.now())])
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    mode: r.mode,
    permissions: r.permissions,
    capabilities: r.capabilities,
    revealable: r.revealable,
    monthlySpendCap: r.monthly_spend_cap == null ? null : Number(r.monthly_spend_cap),
    monthSpend: spends.get(r.id) ?? 0,
    createdAt: new Date(r.created_at).toISOString(),
    revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  }))
}

const capOf = (raw: string | undefined): number | null => {
  if (raw === undefined || raw.trim() === '') return null
  if (!/^\d{1,12}$/.test(raw.trim())) throw new ApiError('invalid_request', 'The monthly cap is a whole number of credits.')
  return Number(raw.trim())
}

/** The allowlist field of a form: names separated by commas or spaces; empty is every capability. */
const capabilitiesOf = (raw: string | undefined): string[] | null => {
  const names = [...new Set((raw ?? '').split(/[\s,]+/).filter(Boolean))]
  return names.length ? names : null
}

export function keysRoutes(router: Router, { services, allow, acting, frame }: Kit): void {
  const { db } = services
  const ownKey = async (accountId: string, keyId: string | undefined) => {
    const [row] =
      keyId && UUID.test(keyId)
        ? await db.sql(`select id from api_keys where id = ? and account_id = ? and revoked_at is null`, [keyId, accountId])
        : []
    if (!row) throw new ApiError('not_found', 'No such key on this account.')
    return row.id as string
  }
  router.get('/dashboard/keys', allow('keys.read'), async (ctx) => {
    const { done } = read.query.page(ctx.query)
    const { accountId } = state(ctx).session
    page(ctx, keysPage(await frame(ctx, 'keys', notice(done)), await keyRows(services, accountId), (await getAccount(db, accountId)).plan))
  })
  router.post('/dashboard/keys', allow('keys.write'), async (ctx) => {
    const { accountId, role } = state(ctx).session
    const f = read.form.createKey(body(ctx))
    const name = (f.name ?? '').trim() || undefined
    const mode = f.mode ?? 'live'
    const scope = {
      permissions: f.permissions ?? (roleMay(role, 'members.write') ? 'all' : 'call'),
      capabilities: capabilitiesOf(f.capabilities),
    }
    checkScope(services, scope, role)
    const created = await createKey(
      db,
      accountId,
      { ...(name ? { name } : {}), mode, monthlySpendCap: capOf(f.monthlySpendCap), ...scope },
      services.secrets,
      acting(ctx),
    )
    // Rendered in this response, never redirected: a live key's secret is shown once (a test key's can be shown again).
    page(
      ctx,
      keysPage(await frame(ctx, 'keys'), await keyRows(services, accountId), (await getAccount(db, accountId)).plan, {
        key: created.key,
        name: created.name,
        mode,
      }),
    )
  })
  router.post('/dashboard/keys/:id/reveal', allow('keys.write'), async (ctx) => {
    const { accountId } = state(ctx).session
    const shown = await openTestKey(db, services.secrets, accountId, await ownKey(accountId, ctx.params.id))
    if (!shown) throw new ApiError('not_found', 'Only test keys made here can be shown again.')
    await audit(db, acting(ctx), { accountId, action: 'key.revealed', target: { type: 'key', id: shown.id } })
    const row = (await keyRows(services, accountId)).find((k) => k.id === shown.id)!
    page(
      ctx,
      keysPage(await frame(ctx, 'keys'), await keyRows(services, accountId), (await getAccount(db, accountId)).plan, {
        key: shown.key,
        name: row.name,
        mode: 'test',
        revealed: true,
      }),
    )
  })
  // /docs "Try it out" is authorized with this test key (core/docs/docs.ts): same origin, the session's cookie,
  // never cached; a page of another origin cannot read it. A GET changes nothing: an account without a test key
  // made here (sign-up makes one; the keys page makes more) gets `key: null`, and /docs asks for a key instead.
  router.get('/dashboard/docs-key', allow('keys.read'), async (ctx) => {
    const shown = await openTestKey(db, services.secrets, state(ctx).session.accountId)
    ctx.body = { key: shown?.key ?? null }
  })
  router.post('/dashboard/keys/:id/revoke', allow('keys.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { accountId } = state(ctx).session
    await revokeKey(db, await ownKey(accountId, ctx.params.id), services.keys, services.now(), acting(ctx), accountId)
    ctx.redirect('/dashboard/keys?done=revoked')
  })
  router.post('/dashboard/keys/:id/cap', allow('keys.write'), async (ctx) => {
    const { monthlySpendCap } = read.form.keyCap(body(ctx))
    const { accountId } = state(ctx).session
    await updateKey(db, await ownKey(accountId, ctx.params.id), { monthlySpendCap: capOf(monthlySpendCap) }, acting(ctx), accountId)
    ctx.redirect('/dashboard/keys?done=cap')
  })
  router.post('/dashboard/keys/:id/scope', allow('keys.write'), async (ctx) => {
    const f = read.form.keyScope(body(ctx))
    const { accountId, role } = state(ctx).session
    const scope = { permissions: f.permissions, capabilities: capabilitiesOf(f.capabilities) }
    checkScope(services, scope, role)
    await updateKey(db, await ownKey(accountId, ctx.params.id), scope, acting(ctx), accountId)
    ctx.redirect('/dashboard/keys?done=scope')
  })
}

type Created = { key: string; name: string | null; mode: 'live' | 'test'; revealed?: boolean }

function keysPage(frame: Frame, keys: KeyRow[], plan: Plan, created?: Created): string {
  const active = keys.filter((k) => !k.revokedAt)
  const revoked = keys.filter((k) => k.revokedAt)
  return layout(
    frame,
    'API keys',
    html`${created ? createdCard(created) : ''}
      <section class="card">
        <div class="card-head"><h2>Create a key</h2></div>
        <form method="post" action="/dashboard/keys" class="row">
          ${csrfField(frame.csrf)}
          <label>Name<input name="name" maxlength="200" placeholder="e.g. production" /></label>
          <label
            >Mode<select name="mode">
              <option value="live">Live (spends credits)</option>
              <option value="test">Test (free, example answers)</option>
            </select></label
          >
          <label
            >Permissions<select name="permissions">
              ${permissionChoices(frame)}
            </select></label
          >
          <label
            >Capabilities <span class="muted">(optional: only these)</span
            ><input name="capabilities" maxlength="2000" placeholder="e.g. classify, parse"
          /></label>
          ${plan === 'team' ? html`<label>Monthly spend cap <span class="muted">(credits, optional)</span><input name="monthlySpendCap" inputmode="numeric" pattern="[0-9]*" /></label>` : ''}
          <button class="primary">Create key</button>
        </form>
        ${plan === 'team' ? '' : html`<p class="muted small">Per-key monthly spend caps come with the <a href="/dashboard/billing">Team plan</a>.</p>`}
      </section>
      <section class="card">
        <div class="card-head">
          <h2>Active keys</h2>
          <div class="muted">${active.length}</div>
        </div>
        ${active.length ? activeKeysTable(frame, active, plan) : html`<p class="muted empty">No active keys. Create one to call the API.</p>`}
      </section>
      ${revoked.length ? revokedKeysCard(revoked) : ''}`,
  )
}

const PERMISSION_LABELS: Record<KeyPermission, string> = {
  all: 'All (also manages the account)',
  call: 'Call capabilities and read',
  read: 'Read only',
}

/** The permissions this member may give a key: "all" only for roles that manage members. */
function permissionChoices(frame: Frame, selected?: KeyPermission) {
  const choices = KEY_PERMISSIONS.filter((p) => p !== 'all' || frame.can('members.write') || selected === 'all')
  const chosen = selected ?? (frame.can('members.write') ? 'all' : 'call')
  return choices.map((p) => html`<option value="${p}" ${p === chosen ? 'selected' : ''}>${PERMISSION_LABELS[p]}</option>`)
}

function createdCard(created: Created) {
  return html`<section class="card reveal" id="new-key">
    <h2>${created.revealed ? 'Your test key' : 'Your new key'}${created.name ? html` “${created.name}”` : ''}</h2>
    ${
      created.mode === 'test'
        ? html`<p>A test key: calls answer the endpoint's example, never charge and never call a model. You can show it again here.</p>`
        : html`<p>Copy it now: it is shown <strong>only once</strong>. We store a hash, so it cannot be shown again.</p>`
    }
    <code class="secret" data-testid="new-key">${created.key}</code>
  </section>`
}

function activeKeysTable(frame: Frame, active: KeyRow[], plan: Plan) {
  return html`<table>
    <thead>
      <tr>
        <th>Name</th>
        <th>Key</th>
        <th>Mode</th>
        <th>Permissions</th>
        <th>Created</th>
        <th>Spent this month</th>
        ${plan === 'team' ? html`<th>Monthly cap</th>` : ''}
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${active.map(
        (k) =>
          html`<tr data-key-id="${k.id}">
            <td>${k.name ?? html`<span class="muted">unnamed</span>`}</td>
            <td><code>${k.prefix}…</code></td>
            <td><span class="pill ${k.mode === 'test' ? 'pending' : 'on'}">${k.mode}</span></td>
            <td>
              <form method="post" action="/dashboard/keys/${k.id}/scope" class="inline">
                ${csrfField(frame.csrf)}<select name="permissions" aria-label="Permissions">
                  ${permissionChoices(frame, k.permissions)}</select
                ><input
                  name="capabilities"
                  value="${(k.capabilities ?? []).join(', ')}"
                  placeholder="every capability"
                  maxlength="2000"
                  aria-label="Capabilities"
                /><button>Save</button>
              </form>
            </td>
            <td>${when(k.createdAt)}</td>
            <td>${credits(k.monthSpend)}</td>
            ${
              plan === 'team'
                ? html`<td>
                    <form method="post" action="/dashboard/keys/${k.id}/cap" class="inline">
                      ${csrfField(frame.csrf)}<input
                        name="monthlySpendCap"
                        value="${k.monthlySpendCap ?? ''}"
                        placeholder="none"
                        inputmode="numeric"
                        pattern="[0-9]*"
                        aria-label="Monthly cap"
                      /><button>Save</button>
                    </form>
                  </td>`
                : ''
            }
            <td class="right">
              ${k.revealable ? html`<form method="post" action="/dashboard/keys/${k.id}/reveal" class="inline">${csrfField(frame.csrf)}<button>Show</button></form>` : ''}
              <form method="post" action="/dashboard/keys/${k.id}/revoke" class="inline">
                ${csrfField(frame.csrf)}<button class="danger">Revoke</button>
              </form>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

function revokedKeysCard(revoked: KeyRow[]) {
  return html`<section class="card">
    <div class="card-head"><h2>Revoked keys</h2></div>
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Key</th>
          <th>Revoked</th>
        </tr>
      </thead>
      <tbody>
        ${revoked.map(
          (k) =>
            html`<tr class="revoked">
              <td>${k.name ?? 'unnamed'}</td>
              <td><code>${k.prefix}…</code></td>
              <td>${when(k.revokedAt!)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`
}
