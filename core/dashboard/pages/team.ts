// Team: the account's members and their roles, open invitations, and the invitation form. Owners and admins see
// it; a form is shown only where the viewer's role may use it (an admin never sees owner changes).
import type Router from '@koa/router'
import { ApiError } from '../../errors.ts'
import { invite, listInvitations, revokeInvitation, type Invitation } from '../../teams/invitations.ts'
import { changeRole, listMembers, removeMember, type Member } from '../../teams/members.ts'
import { mayManageRole, ROLES } from '../../roles.ts'
import { when } from '../format.ts'
import { body, state } from '../guards.ts'
import { html } from '../html.ts'
import { read } from '../inputs.ts'
import { notice, page, type Kit } from '../kit.ts'
import { csrfField, layout, type Frame } from '../layout.ts'

export function teamRoutes(router: Router, { services, origin, allow, acting, frame }: Kit): void {
  const { db } = services
  router.get('/dashboard/team', allow('members.read'), async (ctx) => {
    const { done } = read.query.page(ctx.query)
    const { accountId, memberId } = state(ctx).session
    const [members, invitations] = await Promise.all([listMembers(db, accountId), listInvitations(db, accountId, services.now())])
    page(ctx, teamPage(await frame(ctx, 'team', notice(done)), { members, invitations, me: memberId }))
  })
  router.post('/dashboard/team/invitations', allow('members.write'), async (ctx) => {
    const f = read.form.invite(body(ctx))
    await invite(services, state(ctx).session.accountId, { email: f.email.trim(), role: f.role }, acting(ctx), origin())
    ctx.redirect('/dashboard/team?done=invited')
  })
  router.post('/dashboard/team/invitations/:id/revoke', allow('members.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    await revokeInvitation(db, state(ctx).session.accountId, ctx.params.id!, acting(ctx))
    ctx.redirect('/dashboard/team?done=invitation-revoked')
  })
  router.post('/dashboard/team/members/:id/role', allow('members.write'), async (ctx) => {
    const { role } = read.form.role(body(ctx))
    await changeRole(db, state(ctx).session.accountId, ctx.params.id!, role, acting(ctx))
    ctx.redirect('/dashboard/team?done=role')
  })
  router.post('/dashboard/team/members/:id/remove', allow('members.write'), async (ctx) => {
    read.form.csrfOnly(body(ctx))
    const { accountId, memberId } = state(ctx).session
    const removed = await removeMember(db, accountId, ctx.params.id!, acting(ctx))
    if (!removed) throw new ApiError('not_found', 'No such member.')
    // Leaving the account ends this very session with the member row.
    ctx.redirect(removed.id === memberId ? '/dashboard/login' : '/dashboard/team?done=removed')
  })
}

function teamPage(frame: Frame, d: { members: Member[]; invitations: Invitation[]; me: string }): string {
  const manage = frame.can('members.write')
  const assignable = ROLES.filter((r) => mayManageRole(frame.role, r))
  return layout(
    frame,
    'Team',
    html`<section class="card">
        <div class="card-head">
          <h2>Members</h2>
          <div class="muted">${d.members.length}</div>
        </div>
        <table>
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Joined</th>
              <th>Last sign-in</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${d.members.map((m) => {
              const mayChange = manage && mayManageRole(frame.role, m.role)
              return html`<tr data-member-id="${m.id}">
                <td>${m.email}${m.id === d.me ? html` <span class="muted small">(you)</span>` : ''}</td>
                <td>
                  ${
                    mayChange
                      ? html`<form method="post" action="/dashboard/team/members/${m.id}/role" class="inline">
                          ${csrfField(frame.csrf)}<select name="role" aria-label="Role">
                            ${assignable.map((r) => html`<option ${r === m.role ? 'selected' : ''}>${r}</option>`)}</select
                          ><button>Save</button>
                        </form>`
                      : html`<span class="pill">${m.role}</span>`
                  }
                </td>
                <td>${when(m.createdAt)}</td>
                <td>${m.lastSignInAt ? when(m.lastSignInAt) : html`<span class="muted">never</span>`}</td>
                <td class="right">
                  ${
                    mayChange
                      ? html`<form method="post" action="/dashboard/team/members/${m.id}/remove" class="inline">
                          ${csrfField(frame.csrf)}<button class="danger">${m.id === d.me ? 'Leave' : 'Remove'}</button>
                        </form>`
                      : ''
                  }
                </td>
              </tr>`
            })}
          </tbody>
        </table>
      </section>
      ${
        manage
          ? html`<section class="card">
              <div class="card-head"><h2>Invite someone</h2></div>
              <form method="post" action="/dashboard/team/invitations" class="row">
                ${csrfField(frame.csrf)}
                <label>Email<input type="email" name="email" required maxlength="254" /></label>
                <label
                  >Role<select name="role">
                    ${assignable.map((r) => html`<option ${r === 'developer' ? 'selected' : ''}>${r}</option>`)}
                  </select></label
                >
                <button class="primary">Send invitation</button>
              </form>
              <p class="muted small">The email holds a link that works once, for 7 days.</p>
            </section>`
          : ''
      }
      <section class="card">
        <div class="card-head"><h2>Open invitations</h2></div>
        ${
          d.invitations.length
            ? html`<table>
                <thead>
                  <tr>
                    <th>Email</th>
                    <th>Role</th>
                    <th>Expires</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${d.invitations.map(
                    (i) =>
                      html`<tr data-invitation-id="${i.id}">
                        <td>${i.email}</td>
                        <td>${i.role}</td>
                        <td>${i.status === 'expired' ? html`<span class="pill failed">expired</span>` : when(i.expiresAt)}</td>
                        <td class="right">
                          ${
                            manage && mayManageRole(frame.role, i.role)
                              ? html`<form method="post" action="/dashboard/team/invitations/${i.id}/revoke" class="inline">
                                  ${csrfField(frame.csrf)}<button class="danger">Revoke</button>
                                </form>`
                              : ''
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : html`<p class="muted empty">No open invitations.</p>`
        }
      </section>`,
  )
}
