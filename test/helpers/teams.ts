// Members for tests: a member of an account with a role, signed in to the dashboard through the real session code
// (openSession), as a cookie-jar client that knows its CSRF token.
import { randomUUID } from 'node:crypto'
import { openSession } from '../../core/dashboard/session.ts'
import type { Role } from '../../core/roles.ts'
import type { TestApp } from './app.ts'
import { WebClient } from './web-client.ts'

let people = 0

/** A new member of `accountId` with `role` (or the account's owner when `email` is theirs), signed in. */
export async function signedInMember(
  app: TestApp,
  accountId: string,
  role: Role,
  email?: string,
): Promise<WebClient & { memberId: string; email: string }> {
  const { db } = app.services
  const address = email ?? `${role}-${++people}-${process.pid}@members.test`
  const [existing] = await db.sql<{ id: string }>(`select id from members where account_id = ? and email = ?`, [accountId, address])
  const memberId = existing?.id ?? randomUUID()
  if (!existing)
    await db.sql(`insert into members (id, account_id, email, role, created_at) values (?, ?, ?, ?, now())`, [
      memberId,
      accountId,
      address,
      role,
    ])
  const sessionId = await openSession(
    app.services,
    { accountId, memberId, email: address },
    { method: 'link' },
    { requestId: 'req_test_sign_in', ip: '127.0.0.1' },
  )
  const client = Object.assign(new WebClient(app), { memberId, email: address })
  client.cookies.set('dash_session', sessionId)
  const [{ csrf }] = (await db.sql(
    `select csrf_token as csrf from dashboard_sessions where member_id = ? order by created_at desc limit 1`,
    [memberId],
  )) as [{ csrf: string }]
  client.csrf = csrf
  return client
}

/** The audit entries of an account, oldest first. */
export async function auditEntries(app: TestApp, accountId: string) {
  return app.services.db.sql<{
    id: string
    action: string
    actor_type: string
    actor_id: string | null
    actor_email: string | null
    actor_key_prefix: string | null
    target_type: string
    target_id: string | null
    request_id: string | null
    ip: string | null
    details: Record<string, unknown>
  }>(`select * from audit_entries where account_id = ? order by id`, [accountId])
}
