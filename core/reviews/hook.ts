// The pipeline's one call into reviews: a finished result of an extracting capability, checked against its
// published schema, goes through here before it is captured (sync) or stored with its job (async).
import type { ResolvedDocument } from '../documents/schema.ts'
import { pageTexts, textPages } from '../documents/pages.ts'
import type { Query } from '../db/database.ts'
import type { JsonSchema } from '../run/result.ts'
import { openReview, type ReviewedCall } from './queue.ts'
import { carriesEvidence } from './rule.ts'
import { reviewRuleFor } from './settings.ts'

/** The result as answered, carrying `review` when the account's rule sends any of its values to a person. */
export async function withReview(
  db: Query,
  now: Date,
  capability: { name: string; responseSchema: JsonSchema },
  call: Omit<ReviewedCall, 'endpoint'>,
  result: object,
  source: { input: unknown; documents: readonly ResolvedDocument[] },
): Promise<object> {
  if (!carriesEvidence(capability)) return result
  const rule = await reviewRuleFor(db, call.accountId, capability.name)
  if (!rule) return result
  const kept = { pages: documentPages(source), request: options(source.input) }
  return openReview(db, { ...call, endpoint: capability.name }, rule, result, kept, now)
}

/** What the call asked besides its document (a hint, the fields to extract), for evaluation fixtures. */
const NOT_OPTIONS = new Set(['text', 'file', 'fileUrl', 'pages', 'async', 'callbackUrl'])
const options = (input: unknown): object =>
  Object.fromEntries(Object.entries((input as object | null) ?? {}).filter(([k]) => !NOT_OPTIONS.has(k)))

/** The text the reviewer reads: the first document the handler read, else the call's `text`, by page. */
function documentPages({ input, documents }: { input: unknown; documents: readonly ResolvedDocument[] }): string[] {
  if (documents[0]) return pageTexts(documents[0])
  const text = (input as { text?: unknown } | null)?.text
  return typeof text === 'string' ? textPages(text) : []
}
