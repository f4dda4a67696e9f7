// The audit log is append-only for the application's own database role (C18): a deployment's single role owns the
// tables and runs the migrations, so the test does exactly that with a fresh non-superuser role, then tries to
// UPDATE, DELETE and TRUNCATE as it. Only entries past the 400-day retention can go, and only maintenance removes
// them. Plus the API: filters, cursor pages, CSV.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { audit, operatorActing, systemActing } from '../../core/audit/audit.ts'
import { AUDIT_RETENTION_DAYS } from '../../core/audit/list.ts'
import type { Config } from '../../core/config.ts'
import { migrate, openDatabase } from '../../core/db/database.ts'
import { createPartitionsAhead, dropExpiredPartitions, partitionName, periodStart } from '../../core/records/partitions.ts'
import { PARTITIONED_TABLES } from '../../core/records/tables.ts'
import { startTestApp } from '../helpers/app.ts'
import { serverUrl, withDatabase } from '../../devkit/database.ts'

t.test('as the application’s own role (owner of the tables, not a superuser): UPDATE, DELETE and TRUNCATE fail', async (t) => {
  const server = await serverUrl()
  const suffix = randomBytes(4).toString('hex')
  const role = `capapi_app_${suffix}`
  const password = randomBytes(12).toString('hex')
  const name = `capapi_audit_${suffix}`
  const admin = new pg.Client({ connectionString: withDatabase(server, 'postgres') })
  await admin.connect()
  await admin.query(`create role ${role} login password '${password}' nosuperuser nocreatedb nocreaterole`)
  await admin.query(`create database ${name} owner ${role}`)
  t.teardown(async () => {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.query(`drop role if exists ${role}`)
    await admin.end()
  })
  const url = new URL(withDatabase(server, name))
  url.username = role
  url.password = password
  await migrate(url.toString())
  const db = await openDatabase(url.toString(), 2)
  t.teardown(() => db.close())
  const [who] = await db.sql<{ user: string; superuser: boolean }>(
    `select current_user as user, usesuper as superuser from pg_user where usename = current_user`,
  )
  t.same(who, { user: role, superuser: false }, 'connected as the owning, unprivileged role')

  const now = new Date()
  await audit(db, operatorActing(now, 'req_1'), { accountId: null, action: 'test.written', target: { type: 'test', id: '1' } })
  const [entry] = await db.sql<{ id: string }>(`select id from audit_entries`)
  t.ok(entry, 'INSERT works: the log is written')
  for (const statement of [
    `update audit_entries set action = 'test.forged' where id = ${entry!.id}`,
    `delete from audit_entries where id = ${entry!.id}`,
    `truncate audit_entries`,
    `delete from audit_entries`,
  ]) {
    const refused = await db.sql(statement).then(
      () => null,
      (e: { code?: string }) => e.code,
    )
    t.equal(refused, '42501', `${statement.split(' ').slice(0, 2).join(' ')} is refused (insufficient privilege)`)
  }
  const [still] = await db.sql<{ action: string }>(`select action from audit_entries where id = ?`, [entry!.id])
  t.equal(still!.action, 'test.written', 'the entry is unchanged')

  // Retention: an entry past 400 days may be deleted, by maintenance's statement, and nothing younger.
  const old = new Date(now.getTime() - (AUDIT_RETENTION_DAYS + 1) * 86400_000)
  const edge = new Date(now.getTime() - (AUDIT_RETENTION_DAYS - 1) * 86400_000)
  await audit(db, systemActing(old), { accountId: null, action: 'test.old', target: { type: 'test', id: '2' } })
  await audit(db, systemActing(edge), { accountId: null, action: 'test.edge', target: { type: 'test', id: '3' } })
  const edgeDelete = await db.sql(`delete from audit_entries where action = 'test.edge'`).then(
    () => null,
    (e: { code?: string }) => e.code,
  )
  t.equal(edgeDelete, '42501', 'an entry inside the retention cannot be deleted')
  // Even a service clock a year ahead, or a retention setting under 400 days, cannot make maintenance delete what
  // the database's clock keeps.
  const auditTable = PARTITIONED_TABLES.find((p) => p.table === 'audit_entries')!
  const shortRetention = { auditLogRetentionDays: 30 } as Config
  const pass = await dropExpiredPartitions(db, auditTable, new Date(now.getTime() + 365 * 86400_000), shortRetention)
  t.equal(pass.rowsDeleted, 1, 'maintenance removes the one past 400 days')

  // A partition maintenance made ahead is as append-only as the table.
  await createPartitionsAhead(db, auditTable, now)
  const nextMonth = partitionName(auditTable, periodStart(now, 'month', 1))
  await audit(db, systemActing(periodStart(now, 'month', 1)), { accountId: null, action: 'test.next', target: { type: 'test', id: '4' } })
  for (const statement of [`truncate ${nextMonth}`, `update ${nextMonth} set action = 'x'`, `delete from ${nextMonth}`]) {
    const refused = await db.sql(statement).then(
      () => null,
      (e: { code?: string }) => e.code,
    )
    t.equal(refused, '42501', `${statement} is refused`)
  }
  await db.sql(`delete from audit_entries where action = 'test.next'`).catch(() => {})
  t.same(
    (await db.sql<{ action: string }>(`select action from audit_entries order by id`)).map((r) => r.action),
    ['test.written', 'test.edge', 'test.next'],
  )
})

t.test('GET /v1/audit-log: filters, cursor pages, CSV, and another account’s entries are never there', async (t) => {
  const app = await startTestApp(t)
  const a = await app.customer(0)
  const b = await app.customer(0)
  for (let i = 0; i < 5; i++) await app.call('/v1/keys', { key: a.key, body: { name: `k${i}`, permissions: 'read' } })
  await app.call('/v1/keys', { key: b.key, body: { name: 'b-key' } })
  const first = await app.call('/v1/audit-log?action=key.created&limit=2', { key: a.key })
  t.equal(first.status, 200)
  t.equal(first.body.entries.length, 2)
  t.match(first.body.entries[0], { action: 'key.created', actor: { type: 'key', id: a.keyId }, target: { type: 'key' } })
  t.ok(first.body.entries[0].requestId.startsWith('req_'), 'with the request id')
  let all = [...first.body.entries]
  let cursor = first.body.nextCursor
  while (cursor) {
    const page = await app.call(`/v1/audit-log?action=key.created&limit=2&cursor=${cursor}`, { key: a.key })
    all = all.concat(page.body.entries)
    cursor = page.body.nextCursor
  }
  // The account's own key (created with it) is key.created too.
  t.equal(all.length, 6, 'the pages hold every key.created of the account, once')
  t.equal(new Set(all.map((e) => e.id)).size, 6)
  t.notOk(
    all.some((e) => e.details.name === 'b-key'),
    'nothing of the other account',
  )
  const family = await app.call('/v1/audit-log?action=account', { key: a.key })
  t.same(
    family.body.entries.map((e: { action: string }) => e.action),
    ['account.created'],
    'a family: account.*',
  )
  const byActor = await app.call(`/v1/audit-log?actor=${a.keyId}`, { key: a.key })
  t.equal(byActor.body.entries.length, 5, 'by actor: the five the key made')
  const future = await app.call(`/v1/audit-log?from=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`, { key: a.key })
  t.same(future.body.entries, [], 'from excludes older entries')
  const csv = await app.call('/v1/audit-log/export?action=key.created', { key: a.key })
  t.equal(csv.status, 200)
  t.match(csv.headers.get('content-type'), /text\/csv/)
  const lines = csv.text.trim().split('\r\n')
  t.equal(lines[0], 'id,at,actor_type,actor_id,actor_email,actor_key_prefix,action,target_type,target_id,request_id,ip,details')
  t.equal(lines.length, 7, 'a header and six entries, oldest first')
  t.equal((await app.call('/v1/audit-log?cursor=nonsense', { key: a.key })).status, 400)
  t.equal((await app.call('/v1/audit-log?action=DROP%20TABLE', { key: a.key })).status, 400)
})

t.test('the operator: /admin lists an account’s members and audit log, and every operator action is one audit entry', async (t) => {
  const ADMIN = 'admin-token-for-audit-tests-0123456789'
  const app = await startTestApp(t, { config: { adminToken: ADMIN } })
  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(app.url + path, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: { authorization: `Bearer ${ADMIN}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    })
  const created = await admin('/admin/accounts', { body: { email: 'ops@example.test' } })
  const account = (await created.json()) as { id: string }
  const members = await admin(`/admin/accounts/${account.id}/members`)
  t.match(await members.json(), { members: [{ email: 'ops@example.test', role: 'owner' }] }, 'the account’s owner is listed')
  const actions: Array<[string, { method?: string; body?: unknown }, string]> = [
    [`/admin/accounts/${account.id}/credits`, { body: { credits: 100, reason: 'goodwill' } }, 'credits.granted'],
    [`/admin/accounts/${account.id}/plan`, { body: { plan: 'team' } }, 'plan.changed'],
    [`/admin/accounts/${account.id}/keys`, { body: { name: 'ops' } }, 'key.created'],
    [`/admin/accounts/${account.id}/webhook-secret`, { body: {} }, 'webhook_secret.created'],
    [`/admin/accounts/${account.id}`, {}, 'operator.viewed'],
    [`/admin/accounts/${account.id}/members`, {}, 'operator.viewed'],
  ]
  for (const [path, init, action] of actions) {
    const res = await admin(path, init)
    t.ok(res.status < 300, `${path}: ${res.status}`)
    const entries = await app.services.db.sql(`select action, actor_type, account_id from audit_entries where request_id = ?`, [
      res.headers.get('x-request-id'),
    ])
    t.same(
      entries,
      [{ action, actor_type: 'operator', account_id: account.id }],
      `${init.method ?? (init.body ? 'POST' : 'GET')} ${path}: one ${action}`,
    )
  }
  const log = await admin(`/admin/accounts/${account.id}/audit-log?actor=operator&limit=200`)
  const page = (await log.json()) as { entries: Array<{ action: string; actor: { type: string } }> }
  t.ok(page.entries.length >= actions.length + 1, 'the operator reads the account’s audit log')
  t.ok(page.entries.every((e) => e.actor.type === 'operator'))
  const [looked] = await app.services.db.sql(`select details from audit_entries where request_id = ?`, [log.headers.get('x-request-id')])
  t.match(looked, { details: { what: 'audit-log' } }, 'and that look is itself an entry')
})
