// Completed reviews as evaluation fixtures (`npm run admin -- reviews:export`, then `npm run eval -- --reviewed`),
// only for an account whose settings give its consent (evalConsent). A fixture is the document's text (the original
// bytes are not kept: a PDF is sent as the text of its pages, a form feed between pages) with the call's other
// options, and the reviewed result as what a right answer says: its values, without evidence, review or warnings.
import type { Query } from '../db/database.ts'
import { ApiError } from '../errors.ts'
import { getReviewSettings } from './settings.ts'

export interface ReviewFixture {
  capability: string
  /** the review's id */
  name: string
  request: Record<string, unknown>
  expected: Record<string, unknown>
}

const NOT_VALUES = new Set(['evidence', 'grounded', 'confidence', 'grounding', 'review', 'warnings', 'usage'])

/** A result's values only: what the eval scores field by field. */
function valuesOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(valuesOf)
  if (!v || typeof v !== 'object') return v
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (NOT_VALUES.has(k) ? [] : [[k, valuesOf(x)]])))
}

/** The account's completed live reviews (of `endpoint` when given), oldest first; images (no text) are left out. */
export async function reviewFixtures(db: Query, accountId: string, endpoint?: string): Promise<ReviewFixture[]> {
  if (!(await getReviewSettings(db, accountId)).evalConsent)
    throw new ApiError('invalid_request', 'This account has not consented to its reviews being used for evaluation (evalConsent).')
  const rows = await db.sql<{ id: string; endpoint: string; request: Record<string, unknown>; pages: string[]; reviewed_result: object }>(
    `select id, endpoint, request, pages, reviewed_result from reviews
      where account_id = ? and livemode and status = 'completed' and (?::text is null or endpoint = ?) order by completed_at, id`,
    [accountId, endpoint ?? null, endpoint ?? null],
  )
  return rows
    .filter((r) => r.pages.some((p) => p.trim() !== ''))
    .map((r) => ({
      capability: r.endpoint,
      name: r.id,
      request: { ...r.request, text: r.pages.join('\f') },
      expected: valuesOf(r.reviewed_result) as Record<string, unknown>,
    }))
}
