// The review step of every capability result (services.finishResult, wired in boot.ts): a result of an extracting
// capability, checked against its published schema, goes through here before it is captured (sync) or stored with
// its job (async). The pipeline and the jobs sit below this folder, so they call it through services, never by import.
import type { Database } from '../db/database.ts'
import type { ResolvedDocument } from '../documents/schema.ts'
import { pageTexts, textPages } from '../documents/pages.ts'
import type { SecretBox } from '../secrets.ts'
import type { FinishedResult } from '../services.ts'
import { openReview, type ReviewSource } from './queue.ts'
import { carriesEvidence } from './rule.ts'
import { reviewRuleFor, reviewSettingFor } from './settings.ts'

/** The result as answered, carrying `review` when the account's rule sends any of its values to a person. */
export function reviewStep(db: Database, secrets: SecretBox, now: () => Date) {
  return async ({ capability, result, input, documents, review, ...call }: FinishedResult): Promise<object> => {
    if (!carriesEvidence(capability)) return result
    // A sync call's key brought its account's settings from the key cache; a job reads them.
    const setting = review === undefined ? await reviewSettingFor(db, call.accountId) : review
    const rule = reviewRuleFor(setting, capability.name)
    if (!rule) return result
    const pdf = documents[0]?.kind === 'pdf' ? documents[0] : undefined
    const kept: ReviewSource = {
      pages: documentPages(input, documents),
      request: options(input),
      // The reviewer sees the pages the call read: those it selected, else every one.
      ...(pdf?.bytes ? { pdf: { bytes: pdf.bytes, pages: pdf.selected ?? pdf.pages.map((_, i) => i + 1) } } : {}),
    }
    return openReview(db, secrets, { ...call, endpoint: capability.name }, rule, result, kept, now())
  }
}

/** The text the reviewer reads: the first document the handler read, else the call's `text`, by page. */
function documentPages(input: unknown, documents: readonly ResolvedDocument[]): string[] {
  if (documents[0]) return pageTexts(documents[0])
  const text = (input as { text?: unknown } | null)?.text
  return typeof text === 'string' ? textPages(text) : []
}

/** What the call asked besides its document (a hint, the fields to extract), for evaluation fixtures. */
const NOT_OPTIONS = new Set(['text', 'file', 'fileUrl', 'pages', 'async', 'callbackUrl'])
const options = (input: unknown): object =>
  Object.fromEntries(Object.entries((input as object | null) ?? {}).filter(([k]) => !NOT_OPTIONS.has(k)))
