// An account's review settings (C21): GET/PUT /v1/review-settings and the dashboard's form. Default off. The
// endpoints named must be extracting capabilities (their values carry evidence); none named means all of them.
import { Type, type Static } from '@sinclair/typebox'
import { audit, type Acting } from '../audit/audit.ts'
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { reviewSettingOf, type ReviewSetting } from '../http/caller.ts'
import { carriesEvidence, type ReviewRule } from './rule.ts'
import type { JsonSchema } from '../run/result.ts'

const Mode = Type.Union([Type.Literal('off'), Type.Literal('ungrounded'), Type.Literal('below')], {
  description: 'off: no reviews; ungrounded: values without evidence or that code found wrong; below: values under `threshold`',
})
const Endpoint = Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'a capability name, e.g. parse' })

/** PUT /v1/review-settings. */
export const ReviewSettingsInput = Type.Object(
  {
    mode: Mode,
    threshold: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'with mode "below": the confidence under which a value is reviewed' }),
    ),
    endpoints: Type.Optional(
      Type.Array(Endpoint, { maxItems: 64, uniqueItems: true, description: 'only these extracting endpoints; left out: all of them' }),
    ),
    evalConsent: Type.Optional(
      Type.Boolean({ description: 'completed reviews may be exported as evaluation fixtures (npm run eval); default false' }),
    ),
  },
  { additionalProperties: false },
)
export type ReviewSettingsInput = Static<typeof ReviewSettingsInput>

/** GET and PUT /v1/review-settings; published as components.schemas.ReviewSettings. */
export const ReviewSettings = Type.Object(
  {
    mode: Mode,
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    endpoints: Type.Optional(Type.Array(Type.String())),
    evalConsent: Type.Boolean(),
    updatedAt: Type.Optional(Type.String({ format: 'date-time', description: 'absent: never set (the default, off)' })),
  },
  { additionalProperties: false },
)
export type ReviewSettings = Static<typeof ReviewSettings>

interface Row {
  mode: ReviewSettings['mode']
  threshold: string | null
  endpoints: string[] | null
  eval_consent: boolean
  updated_at: string | Date
}

const view = (r: Row | undefined): ReviewSettings =>
  r
    ? {
        mode: r.mode,
        ...(r.threshold !== null ? { threshold: Number(r.threshold) } : {}),
        ...(r.endpoints ? { endpoints: r.endpoints } : {}),
        evalConsent: r.eval_consent,
        updatedAt: new Date(r.updated_at).toISOString(),
      }
    : { mode: 'off', evalConsent: false }

export async function getReviewSettings(db: Query, accountId: string): Promise<ReviewSettings> {
  const [row] = await db.sql<Row>(`select mode, threshold, endpoints, eval_consent, updated_at from review_settings where account_id = ?`, [
    accountId,
  ])
  return view(row)
}

/** The account's settings when they are on, or null (the key cache reads the same with each key). */
export async function reviewSettingFor(db: Query, accountId: string): Promise<ReviewSetting | null> {
  const [row] = await db.sql<Row>(`select mode, threshold, endpoints from review_settings where account_id = ? and mode <> 'off'`, [
    accountId,
  ])
  return row ? reviewSettingOf(row) : null
}

/** The rule for one endpoint's results, or null when that endpoint's results are not reviewed. */
export function reviewRuleFor(setting: ReviewSetting | null, endpoint: string): ReviewRule | null {
  if (!setting || (setting.endpoints && !setting.endpoints.includes(endpoint))) return null
  return { mode: setting.mode, threshold: setting.threshold }
}

/**
 * Replaces the settings; one audit entry with what they were and what they are. Keys carry their account's settings
 * in every instance's key cache: the account's id is NOTIFYed to them at the commit, and `keys` forgets them here.
 */
export async function putReviewSettings(
  db: Query & { tx<T>(fn: (q: Query) => Promise<T>): Promise<T> },
  keys: { forget(accountId: string): void },
  capabilities: ReadonlyMap<string, { responseSchema: JsonSchema }>,
  accountId: string,
  input: ReviewSettingsInput,
  acting: Acting,
): Promise<ReviewSettings> {
  if (input.mode === 'below' && input.threshold === undefined)
    throw new ApiError('invalid_request', 'Mode "below" needs a threshold.', [
      { path: '/threshold', message: 'required with mode "below"' },
    ])
  if (input.mode !== 'below' && input.threshold !== undefined)
    throw new ApiError('invalid_request', 'A threshold goes with mode "below" only.', [
      { path: '/threshold', message: 'only with mode "below"' },
    ])
  input.endpoints?.forEach((name, i) => {
    const capability = capabilities.get(name)
    if (!capability || !carriesEvidence(capability))
      throw new ApiError('invalid_request', `"${name}" is not an endpoint whose values carry evidence.`, [
        {
          path: `/endpoints/${i}`,
          message: `not an extracting endpoint (${[...capabilities]
            .filter(([, c]) => carriesEvidence(c))
            .map(([n]) => n)
            .join(', ')})`,
        },
      ])
  })
  const settings = await db.tx(async (q) => {
    const before = await getReviewSettings(q, accountId)
    const evalConsent = input.evalConsent ?? before.evalConsent
    const [row] = await q.sql<Row>(
      `insert into review_settings (account_id, mode, threshold, endpoints, eval_consent, updated_at) values (?, ?, ?, ?, ?, ?)
       on conflict (account_id) do update set mode = excluded.mode, threshold = excluded.threshold, endpoints = excluded.endpoints,
         eval_consent = excluded.eval_consent, updated_at = excluded.updated_at
       returning mode, threshold, endpoints, eval_consent, updated_at`,
      [accountId, input.mode, input.threshold ?? null, input.endpoints ?? null, evalConsent, acting.at],
    )
    const after = view(row)
    const { updatedAt: _b, ...was } = before
    const { updatedAt: _a, ...is } = after
    await audit(q, acting, {
      accountId,
      action: 'review_settings.updated',
      target: { type: 'review_settings', id: accountId },
      details: { before: was, after: is },
    })
    await q.sql(`select pg_notify('api_key_revoked', ?)`, [accountId])
    return after
  })
  keys.forget(accountId)
  return settings
}
