// A review's PDF pages as images (C21): the reviewer reads the values off the page itself, which a scan (a PDF
// without a text layer) has nothing else to show. A page is rendered when asked, in the decoder pool and on the
// account's unpaid decoder budget (nobody pays for a review), and never stored: the browser keeps it.
import type { Query } from '../db/database.ts'
import { DocumentRefusal } from '../documents/refusal.ts'
import type { DocumentSandbox } from '../documents/sandbox.ts'
import { ApiError } from '../errors.ts'
import { SecretUnreadable, type SecretBox } from '../secrets.ts'
import type { Scope } from './queue.ts'

/** How long a browser may keep a page image: a review's document never changes. */
export const PAGE_IMAGE_MAX_AGE_SECONDS = 86_400

/** The page numbers of the review's PDF a reviewer may see as images ([] when it has none: text, an image). */
export async function reviewPageImages(db: Query, scope: Scope, id: string): Promise<number[]> {
  const [row] = await db.sql<{ pages: number[] }>(
    `select d.pages from review_documents d join reviews r on r.id = d.review_id
      where r.id = ? and r.account_id = ? and r.livemode = ?`,
    [id, scope.accountId, scope.livemode],
  )
  return row?.pages ?? []
}

/**
 * Page `n` of the review's PDF as a PNG. 404 for another account's review, a review without a PDF and a page it
 * may not show; the PDF's refusal by the decoder is its 422; the account's unpaid decoder time spent, 429.
 */
export async function renderReviewPage(
  deps: { db: Query; secrets: SecretBox; sandbox: Pick<DocumentSandbox, 'renderPage' | 'unpaidRefusal'> },
  scope: Scope,
  id: string,
  n: number,
): Promise<Uint8Array> {
  const [row] = await deps.db.sql<{ pages: number[]; document: string }>(
    `select d.pages, d.document from review_documents d join reviews r on r.id = d.review_id
      where r.id = ? and r.account_id = ? and r.livemode = ?`,
    [id, scope.accountId, scope.livemode],
  )
  if (!row || !row.pages.includes(n)) throw new ApiError('not_found', 'No such page of this review’s document.')
  const reader = { accountId: scope.accountId, unpaid: true, decoderMs: 0 }
  const spent = deps.sandbox.unpaidRefusal(reader)
  if (spent) throw spent // before the document is opened: a spent budget costs no decryption
  let bytes: Uint8Array
  try {
    bytes = Buffer.from(deps.secrets.open(row.document), 'base64')
  } catch (err) {
    if (!(err instanceof SecretUnreadable)) throw err
    throw new ApiError('not_found', 'This review’s document can no longer be read (the service’s key changed); its text is shown.')
  }
  try {
    return await deps.sandbox.renderPage(bytes, n, { reader })
  } catch (err) {
    if (!(err instanceof DocumentRefusal)) throw err
    throw new ApiError(err.code, `Page ${n} of this review’s document cannot be shown: ${err.message}. Its text is shown instead.`)
  }
}
