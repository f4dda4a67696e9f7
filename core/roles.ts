// Who may do what (C18): the five member roles against the dashboard's actions, and the three key permissions
// against the API's kinds of access. One table each; the dashboard, the API, the MCP tool list and the tests all
// read these, so a rule is stated once.

export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const
export type Role = (typeof ROLES)[number]

const EVERYONE = ROLES
const BUILDERS = ['owner', 'admin', 'developer'] as const
const MANAGERS = ['owner', 'admin'] as const

/** What a dashboard page or form does, and the roles that may do it. */
export const ROLE_ACTIONS = {
  'account.read': EVERYONE,
  'usage.read': EVERYONE,
  'requests.read': ['owner', 'admin', 'developer', 'viewer'],
  'webhooks.read': ['owner', 'admin', 'developer', 'viewer'],
  'webhooks.write': BUILDERS,
  'keys.read': BUILDERS,
  'keys.write': BUILDERS,
  'billing.read': ['owner', 'admin', 'billing'],
  'billing.write': ['owner', 'admin', 'billing'],
  'members.read': MANAGERS,
  'members.write': MANAGERS,
  'audit.read': MANAGERS,
  'sso.read': MANAGERS,
  'sso.write': MANAGERS,
  'reviews.read': ['owner', 'admin', 'developer', 'viewer'],
  'reviews.write': BUILDERS,
} as const satisfies Record<string, readonly Role[]>
export type RoleAction = keyof typeof ROLE_ACTIONS

export const roleMay = (role: Role, action: RoleAction): boolean => (ROLE_ACTIONS[action] as readonly Role[]).includes(role)

/** Granting, changing or removing the owner role is an owner's alone (an admin does everything else). */
export const mayManageRole = (actor: Role, target: Role): boolean => target !== 'owner' || actor === 'owner'

/** The roles single sign-on may give a new person: never owner. */
export const JIT_ROLES = ['admin', 'developer', 'billing', 'viewer'] as const satisfies readonly Role[]

export const KEY_PERMISSIONS = ['all', 'call', 'read'] as const
export type KeyPermission = (typeof KEY_PERMISSIONS)[number]

/**
 * What an API route needs of a key: `read` the account's own jobs, requests, usage and balance; `call` a
 * capability; `manage` the account (keys, members, invitations, audit log, single sign-on).
 */
export type KeyAccess = 'read' | 'call' | 'manage'

const KEY_GRANTS: Record<KeyPermission, readonly KeyAccess[]> = {
  all: ['read', 'call', 'manage'],
  call: ['read', 'call'],
  read: ['read'],
}

export const keyMay = (permission: KeyPermission, access: KeyAccess): boolean => KEY_GRANTS[permission].includes(access)

/** The role an `all` key acts with where roles matter (members): an admin's, so a leaked key cannot make owners. */
export const KEY_ROLE: Role = 'admin'
