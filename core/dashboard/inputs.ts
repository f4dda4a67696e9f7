// The dashboard's input boundary: every form body and query string a route reads, as a TypeBox schema that
// the route checks before it looks at a value (strings only, bounded, no control characters, closed
// choices as enums, real calendar dates). A value of the wrong shape is 400 invalid_request, never a 500.
import { Type, type TLiteral } from '@sinclair/typebox'
import { PACKS, PLANS, type Pack, type Plan } from '../accounts/accounts.ts'
import { RECHARGE_PACKS } from '../billing/billing.ts'
import { JIT_ROLES, KEY_PERMISSIONS, ROLES } from '../roles.ts'
import { FormText, inputReader } from '../validation.ts'

const oneOf = <T extends string>(values: readonly T[]) => Type.Union(values.map((v): TLiteral<T> => Type.Literal(v)))
const Csrf = FormText(64)
/** An optional form/query value where the empty string (an untouched field) means "not given". */
const blankOr = (schema: ReturnType<typeof FormText>) => Type.Optional(Type.Union([Type.Literal(''), schema]))
const closed = <P extends Parameters<typeof Type.Object>[0]>(properties: P) => Type.Object(properties, { additionalProperties: false })

/** An email address a person can receive a sign-in link at (the sign-in forms check it before anything is sent). */
export const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,60}$/

export const NOTICE_NAMES = [
  'revoked',
  'cap',
  'cancelled',
  'recharge',
  'scope',
  'invited',
  'invitation-revoked',
  'role',
  'removed',
  'sso',
  'sso-removed',
  'switched',
  'pinged',
  'endpoint-updated',
  'endpoint-deleted',
  'resent',
  'alerts',
  'reviewed',
  'review-settings',
] as const

/** Form bodies, by what they do. */
export const FORMS = {
  csrfOnly: closed({ _csrf: Csrf }),
  /** Which signing secret (absent: the live one). */
  webhookSecret: closed({ _csrf: Csrf, mode: Type.Optional(oneOf(['live', 'test'] as const)) }),
  login: closed({ _csrf: Csrf, email: FormText(320) }),
  verify: closed({ _csrf: Csrf, token: FormText(64) }),
  createKey: closed({
    _csrf: Csrf,
    name: Type.Optional(FormText(200)),
    mode: Type.Optional(oneOf(['live', 'test'] as const)),
    permissions: Type.Optional(oneOf(KEY_PERMISSIONS)),
    capabilities: Type.Optional(FormText(2000)),
    monthlySpendCap: Type.Optional(FormText(20)),
  }),
  keyScope: closed({ _csrf: Csrf, permissions: oneOf(KEY_PERMISSIONS), capabilities: Type.Optional(FormText(2000)) }),
  switchAccount: closed({ _csrf: Csrf, accountId: FormText(36, { format: 'uuid' }) }),
  invite: closed({ _csrf: Csrf, email: FormText(254, { format: 'email' }), role: oneOf(ROLES) }),
  role: closed({ _csrf: Csrf, role: oneOf(ROLES) }),
  invitation: closed({ _csrf: Csrf, token: FormText(64) }),
  ssoStart: closed({ _csrf: Csrf, email: FormText(254) }),
  sso: closed({
    _csrf: Csrf,
    issuer: FormText(500),
    clientId: FormText(255),
    clientSecret: Type.Optional(FormText(1000)),
    domains: FormText(2000),
    defaultRole: oneOf(JIT_ROLES),
    enforced: Type.Optional(Type.Literal('1')),
  }),
  keyCap: closed({ _csrf: Csrf, monthlySpendCap: Type.Optional(FormText(20)) }),
  reviewSettings: closed({
    _csrf: Csrf,
    mode: oneOf(['off', 'ungrounded', 'below'] as const),
    threshold: blankOr(FormText(8, { pattern: '^(0(\\.\\d{1,4})?|1(\\.0{1,4})?)$' })),
    endpoints: Type.Optional(FormText(2000)),
    evalConsent: Type.Optional(Type.Literal('1')),
  }),
  /** A review's decisions: `f<i>` is the value of its i-th flagged field as the reviewer left it (unchanged: accepted). */
  review: Type.Object({ _csrf: Csrf }, { additionalProperties: false, patternProperties: { '^f\\d{1,4}$': FormText(20_000) } }),
  checkout: closed({
    _csrf: Csrf,
    pack: Type.Optional(oneOf(Object.keys(PACKS) as Pack[])),
    plan: Type.Optional(oneOf(Object.keys(PLANS).filter((p) => p !== 'none') as Exclude<Plan, 'none'>[])),
  }),
  /** A webhook endpoint: `events` comma-separated (empty: every type). */
  endpoint: closed({ _csrf: Csrf, url: FormText(2048), events: Type.Optional(FormText(600)), description: Type.Optional(FormText(500)) }),
  endpointEnabled: closed({ _csrf: Csrf, enabled: oneOf(['0', '1'] as const) }),
  /** Alerts: comma-separated numbers (empty: none); email a checkbox. */
  alerts: closed({
    _csrf: Csrf,
    balanceThresholds: Type.Optional(FormText(200)),
    keyBudgetPercents: Type.Optional(FormText(100)),
    email: Type.Optional(Type.Literal('1')),
  }),
  autoRecharge: closed({
    _csrf: Csrf,
    off: Type.Optional(Type.Literal('1')),
    threshold: Type.Optional(FormText(12)),
    pack: Type.Optional(oneOf(RECHARGE_PACKS)),
  }),
}

/** Query strings, by page. */
export const QUERIES = {
  none: closed({}),
  page: closed({ done: Type.Optional(oneOf(NOTICE_NAMES)) }),
  verify: closed({ token: Type.Optional(FormText(64)) }),
  audit: closed({
    action: blankOr(FormText(81, { pattern: '^[a-z_]{1,40}(?:\\.[a-z_]{1,40})?$' })),
    actor: blankOr(FormText(254)),
    from: blankOr(FormText(10, { format: 'date' })),
    to: blankOr(FormText(10, { format: 'date' })),
    cursor: Type.Optional(FormText(64)),
  }),
  usage: closed({
    endpoint: blankOr(FormText(64, { pattern: '^[a-z0-9-]{1,64}$' })),
    keyId: blankOr(FormText(36, { format: 'uuid' })),
    from: blankOr(FormText(10, { format: 'date' })),
    to: blankOr(FormText(10, { format: 'date' })),
    cursor: Type.Optional(FormText(64)),
  }),
  reviews: closed({
    status: Type.Optional(oneOf(['', 'pending', 'completed'] as const)),
    done: Type.Optional(oneOf(NOTICE_NAMES)),
    cursor: Type.Optional(FormText(200)),
  }),
  billing: closed({ done: Type.Optional(oneOf(NOTICE_NAMES)), checkout: Type.Optional(oneOf(['done', 'cancelled'] as const)) }),
}

/** The checked readers of the schemas above: `read.form.login(body)`, `read.query.usage(ctx.query)`. */
export const read = {
  form: Object.fromEntries(Object.entries(FORMS).map(([k, schema]) => [k, inputReader(schema, 'form')])) as {
    [K in keyof typeof FORMS]: ReturnType<typeof inputReader<(typeof FORMS)[K]>>
  },
  query: Object.fromEntries(Object.entries(QUERIES).map(([k, schema]) => [k, inputReader(schema, 'query')])) as {
    [K in keyof typeof QUERIES]: ReturnType<typeof inputReader<(typeof QUERIES)[K]>>
  },
}
