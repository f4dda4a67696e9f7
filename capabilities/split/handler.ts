import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { answerDocument, type CapabilityContext, MText, NonBlank, normalizeDate, StringEnum } from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

export const STARTS = 'starts a new document'
export const CONTINUES = 'continues the current document'
export const BLANK = 'blank or separator page'

/** What the model says about a document: everything but its pages, which come from the page roles. */
const DocumentInfo = {
  docType: NonBlank(),
  title: NonBlank(),
  party: MText,
  date: MText,
  summary: NonBlank(),
}
const Role = Type.Union([
  Type.Object({ role: StringEnum([STARTS]), ...DocumentInfo }, { additionalProperties: false }),
  Type.Object({ role: StringEnum([CONTINUES]) }, { additionalProperties: false }),
  Type.Object({ role: StringEnum([BLANK]) }, { additionalProperties: false }),
])
const InfoSchema = Type.Object(DocumentInfo, { additionalProperties: false })
type Info = Static<typeof InfoSchema>
type PageRole = Static<typeof Role>

/** Pages that may come before the first document (blank or separator sheets): bounds the schema's branches. */
export const MAX_LEADING_PAGES = 9

/**
 * The answer schema of one call. The model names the page the first document starts on (pages before it belong
 * to no document), that document, and a role for each later page. Ranges then follow by construction: never
 * out of the bundle, reversed or overlapping, and at least one document (JSON Schema states all of it). One branch
 * per possible first page, at most MAX_LEADING_PAGES + 1 of them: compiling one branch per page of a long bundle
 * costs seconds (BENCHMARKS.md).
 */
export function modelSplit(pageCount: number) {
  const branches: TSchema[] = Array.from({ length: Math.min(pageCount, MAX_LEADING_PAGES + 1) }, (_, k) =>
    Type.Object(
      {
        firstPage: Type.Integer({ minimum: k + 1, maximum: k + 1 }),
        firstDocument: Type.Unsafe<Info>({ $ref: '#/$defs/info' }),
        laterPages: Type.Array(Type.Unsafe<PageRole>({ $ref: '#/$defs/role' }), {
          minItems: pageCount - k - 1,
          maxItems: pageCount - k - 1,
        }),
      },
      { additionalProperties: false },
    ),
  )
  return Type.Object({ bundle: Type.Union(branches) }, { additionalProperties: false, $defs: { info: InfoSchema, role: Role } })
}
interface ModelSplit {
  bundle: { firstPage: number; firstDocument: Info; laterPages: PageRole[] }
}

interface Range extends Info {
  pageStart: number
  pageEnd: number
}

/**
 * The documents the page roles describe, in page order. A blank page between two pages of one document is part of
 * it; a page that continues nothing (before the first document) cannot occur: the first document starts the roles.
 */
function rangesOf({ firstPage, firstDocument, laterPages }: ModelSplit['bundle']): Range[] {
  const docs: Range[] = [{ ...firstDocument, pageStart: firstPage, pageEnd: firstPage }]
  laterPages.forEach((p, i) => {
    const page = firstPage + 1 + i
    if (p.role === STARTS) {
      const { role: _role, ...info } = p as Info & { role: string }
      docs.push({ ...info, pageStart: page, pageEnd: page })
    } else if (p.role === CONTINUES) docs.at(-1)!.pageEnd = page
  })
  return docs
}

/** The instructions for a bundle of `pageCount` pages. */
function splitSystem(pageCount: number): string {
  return [
    'You split a bundle of scanned or merged pages into the separate documents it contains and classify each one.',
    `The bundle has ${pageCount} page${pageCount === 1 ? '' : 's'}${pageCount > 1 ? ', marked "--- page N ---" where its text is given' : ''}.`,
    'Return JSON: {"bundle": {firstPage, firstDocument, laterPages}}:',
    '- firstPage: the page the first document starts on (pages before it are blank or separator pages);',
    '- firstDocument: that document, {docType, title, party, date, summary};',
    `- laterPages: one entry for each page after firstPage, in order (page firstPage + 1 … ${pageCount}), each {"role": …}:`,
    `  "${STARTS}" (with the new document's docType, title, party, date, summary), "${CONTINUES}" (another page of the`,
    `  document before it, e.g. page 2 of an invoice), or "${BLANK}" (a blank page inside a document belongs to it).`,
    'A document is described by:',
    '- docType: the kind of document in lower case (invoice, receipt, letter, contract, statement, form, report, email, other …);',
    '- title: a short title, e.g. "Invoice SPD-4410" or the subject of a letter;',
    '- party: the issuer or sender (the vendor of an invoice, the author of a letter), or null;',
    "- date: the document's own date as YYYY-MM-DD, or null;",
    '- summary: one or two sentences on what the document says.',
  ].join('\n')
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const { answer, pages } = await answerDocument<ModelSplit>(ctx, input, (pages) => ({
    system: splitSystem(pages.length),
    schema: modelSplit(pages.length),
  }))
  const pageCount = pages.length
  const warnings: string[] = []
  const documents = rangesOf(answer.bundle).map((d, i) => {
    const date = normalizeDate(d.date)
    if (d.date !== null && d.date.trim() !== '' && date === null)
      warnings.push(`documents[${i}].date: "${d.date.slice(0, 60)}" is not a date; returned null.`)
    return {
      docType: d.docType.trim().toLowerCase(),
      title: d.title.trim(),
      pageStart: d.pageStart,
      pageEnd: d.pageEnd,
      party: d.party?.trim() || null,
      date,
      summary: d.summary.trim(),
    }
  })
  const covered = new Set(documents.flatMap((d) => Array.from({ length: d.pageEnd - d.pageStart + 1 }, (_, k) => d.pageStart + k)))
  const unassignedPages = Array.from({ length: pageCount }, (_, k) => k + 1).filter((p) => !covered.has(p))
  return { documents, documentCount: documents.length, pageCount, unassignedPages, warnings }
}
