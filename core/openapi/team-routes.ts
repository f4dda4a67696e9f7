// The management routes of C18 as core/openapi/kernel-routes.ts lists them: keys, members, invitations, the audit
// log and single sign-on. Each needs a live key with permissions "all" (403 permission_denied otherwise).
import { ApiKey, ApiKeyCreated, KeyInput, KeyList, KeyPatch, KeyRevoked } from '../accounts/key-routes.ts'
import { AuditPage } from '../audit/list.ts'
import { auditExportParameters, auditParameters } from '../audit/routes.ts'
import { SsoRemoved } from '../sso/routes.ts'
import { SsoInput, SsoSettings } from '../sso/settings.ts'
import { Invitation } from '../teams/invitations.ts'
import { Member } from '../teams/members.ts'
import { InvitationList, MemberInput, MemberList, RoleInput } from '../teams/routes.ts'
import type { KernelRoute } from './kernel-route.ts'

const id = (what: string) => [
  { name: 'id', in: 'path', required: true, description: `the ${what}’s id`, schema: { type: 'string', format: 'uuid' } },
]
const team = { tag: 'team' as const, authenticated: true }
// 403: a key without permissions "all", or a role rule (only an owner changes owners).
const MANAGE = [403]

export const TEAM_ROUTES: KernelRoute[] = [
  {
    ...team,
    method: 'get',
    path: '/v1/keys',
    operationId: 'listKeys',
    summary: 'List the account’s keys',
    description: 'Newest first, revoked ones included; never a key itself.',
    response: { name: 'KeyList', schema: KeyList, description: 'The keys' },
    errors: MANAGE,
  },
  {
    ...team,
    method: 'post',
    path: '/v1/keys',
    operationId: 'createKey',
    summary: 'Create a key',
    description:
      'A live or test key with permissions (all | call | read), an optional capability allowlist and a monthly cap (Team plan). The key is in this answer only.',
    requestBody: { name: 'KeyInput', schema: KeyInput, example: { name: 'ci', permissions: 'call', capabilities: ['parse', 'extract'] } },
    status: 201,
    response: { name: 'ApiKeyCreated', schema: ApiKeyCreated, description: 'The key, shown once' },
    errors: [400, ...MANAGE, 409],
  },
  {
    ...team,
    method: 'patch',
    path: '/v1/keys/{id}',
    operationId: 'updateKey',
    summary: 'Change a key’s name, scope or cap',
    description: 'Fields left out stay. A changed scope applies to the key’s next call on every instance (within 1 s).',
    parameters: id('key'),
    requestBody: { name: 'KeyPatch', schema: KeyPatch, example: { permissions: 'read', capabilities: null } },
    response: { name: 'ApiKey', schema: ApiKey, description: 'The key' },
    errors: [400, ...MANAGE, 404, 409],
  },
  {
    ...team,
    method: 'delete',
    path: '/v1/keys/{id}',
    operationId: 'revokeKey',
    summary: 'Revoke a key',
    description: 'Calls with it are refused from now on (every instance within 1 s).',
    parameters: id('key'),
    response: { name: 'KeyRevoked', schema: KeyRevoked, description: 'The key’s id and when it was revoked' },
    errors: [...MANAGE, 404],
  },
  {
    ...team,
    method: 'get',
    path: '/v1/members',
    operationId: 'listMembers',
    summary: 'List the account’s members',
    response: { name: 'MemberList', schema: MemberList, description: 'The members, oldest first' },
    errors: MANAGE,
  },
  {
    ...team,
    method: 'post',
    path: '/v1/members',
    operationId: 'addMember',
    summary: 'Add a member',
    description:
      'The email joins at once and signs in with it; POST /v1/invitations asks them first. A key acts as an admin: it cannot add owners.',
    requestBody: { name: 'MemberInput', schema: MemberInput, example: { email: 'finance@example.com', role: 'billing' } },
    status: 201,
    response: { name: 'Member', schema: Member, description: 'The new member' },
    errors: [400, ...MANAGE],
  },
  {
    ...team,
    method: 'patch',
    path: '/v1/members/{id}',
    operationId: 'changeMemberRole',
    summary: 'Change a member’s role',
    description: 'An account always keeps one owner; only an owner grants or takes away the owner role.',
    parameters: id('member'),
    requestBody: { name: 'RoleInput', schema: RoleInput, example: { role: 'viewer' } },
    response: { name: 'Member', schema: Member, description: 'The member' },
    errors: [400, ...MANAGE, 404],
  },
  {
    ...team,
    method: 'delete',
    path: '/v1/members/{id}',
    operationId: 'removeMember',
    summary: 'Remove a member',
    description: 'Their dashboard sessions end at once. The last owner cannot be removed.',
    parameters: id('member'),
    response: { name: 'Member', schema: Member, description: 'The member as it was' },
    errors: [400, ...MANAGE, 404],
  },
  {
    ...team,
    method: 'get',
    path: '/v1/invitations',
    operationId: 'listInvitations',
    summary: 'List open invitations',
    response: { name: 'InvitationList', schema: InvitationList, description: 'Invitations neither accepted nor revoked' },
    errors: MANAGE,
  },
  {
    ...team,
    method: 'post',
    path: '/v1/invitations',
    operationId: 'invite',
    summary: 'Invite someone by email',
    description: 'Emails a single-use link valid for 7 days that makes them a member with this role. The link is never in the answer.',
    requestBody: { name: 'MemberInput', schema: MemberInput, example: { email: 'colleague@example.com', role: 'developer' } },
    status: 201,
    response: { name: 'Invitation', schema: Invitation, description: 'The invitation' },
    errors: [400, ...MANAGE],
  },
  {
    ...team,
    method: 'delete',
    path: '/v1/invitations/{id}',
    operationId: 'revokeInvitation',
    summary: 'Revoke an invitation',
    parameters: id('invitation'),
    response: { name: 'Invitation', schema: Invitation, description: 'The invitation as it was' },
    errors: [...MANAGE, 404],
  },
  {
    ...team,
    method: 'get',
    path: '/v1/audit-log',
    operationId: 'listAuditLog',
    summary: 'List the audit log',
    description:
      'Every change of keys, members, invitations, roles, single sign-on, plans, packs, auto-recharge and operator grants, and every sign-in (and failed sign-in), newest first, kept 400 days. Append-only.',
    parameters: auditParameters,
    response: { name: 'AuditPage', schema: AuditPage, description: 'One page of entries, newest first' },
    errors: [400, ...MANAGE],
  },
  {
    ...team,
    method: 'get',
    path: '/v1/audit-log/export',
    operationId: 'exportAuditLog',
    summary: 'Export the audit log as CSV',
    description: 'Every entry the filters match, oldest first.',
    parameters: auditExportParameters,
    response: { name: 'AuditCsv', schema: { type: 'string' }, description: 'CSV with a header line', csv: true },
    errors: [400, ...MANAGE],
  },
  {
    ...team,
    method: 'get',
    path: '/v1/sso',
    operationId: 'getSso',
    summary: 'Get the single sign-on settings',
    description: '404 when single sign-on is not set up. The client secret is never returned.',
    response: { name: 'SsoSettings', schema: SsoSettings, description: 'The settings' },
    errors: [...MANAGE, 404],
  },
  {
    ...team,
    method: 'put',
    path: '/v1/sso',
    operationId: 'putSso',
    summary: 'Set up or change single sign-on',
    description:
      'OpenID Connect (authorization code with PKCE). The issuer’s discovery document is read first. Each domain belongs to one account; enforced refuses sign-in links for those domains and ends their link sessions.',
    requestBody: {
      name: 'SsoInput',
      schema: SsoInput,
      example: {
        issuer: 'https://login.example.com',
        clientId: 'capapi',
        clientSecret: 'from-your-identity-provider',
        domains: ['example.com'],
        defaultRole: 'developer',
        enforced: false,
      },
    },
    response: { name: 'SsoSettings', schema: SsoSettings, description: 'The settings' },
    errors: [400, ...MANAGE],
  },
  {
    ...team,
    method: 'delete',
    path: '/v1/sso',
    operationId: 'removeSso',
    summary: 'Turn single sign-on off',
    response: { name: 'SsoRemoved', schema: SsoRemoved, description: 'Removed' },
    errors: [...MANAGE, 404],
  },
]
