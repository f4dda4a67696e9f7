// The skeleton every document extractor shares: resolve the document, read its pages, ask the model with the
// pages marked, and keep the pages' text to ground the answer's quotes in (ground.ts). The handler then only
// says what it asks and what it does with the answer.
import { pagedContent, pageTexts } from '../documents/pages.ts'
import type { DocumentInput, ResolvedDocument } from '../documents/schema.ts'
import { DocumentText } from './ground.ts'
import type { ObjectRequest } from '../models/generate.ts'
import type { CapabilityContext } from '../run/manifest.ts'

/** What a document's model request says besides the document itself. */
export type DocumentRequest = Omit<ObjectRequest, 'content'>

export interface DocumentAnswer<T> {
  answer: T
  doc: ResolvedDocument
  /** The text of each page (one entry for a text without page breaks). */
  pages: string[]
  /** The pages as evidence: where each quote of the answer is found. */
  evidence: DocumentText
}

/**
 * The model's answer about the document `input` names, read from its pages (marked "--- page N ---"). `request`
 * may depend on the pages (their count in the instructions or the schema).
 */
export async function answerDocument<T>(
  ctx: Pick<CapabilityContext, 'documents' | 'ai'>,
  input: DocumentInput,
  request: DocumentRequest | ((pages: readonly string[]) => DocumentRequest),
): Promise<DocumentAnswer<T>> {
  const doc = await ctx.documents.resolve(input)
  const pages = pageTexts(doc)
  const asked = typeof request === 'function' ? request(pages) : request
  const answer = await ctx.ai.object<T>({ ...asked, content: pagedContent(doc, pages, ctx) })
  return { answer, doc, pages, evidence: new DocumentText(pages) }
}
