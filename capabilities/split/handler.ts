import { Type, type Static } from '@sinclair/typebox'
import { normalizeDate, pageTexts, pagedContent, type CapabilityContext, type DocumentInput } from '../../core/capability.ts'
import type { SplitResult } from './manifest.ts'

// Asked of the model: everything but the count. Every key present, no length bounds (strict structured output).
const Text = Type.String({ pattern: '\\S' })
/** The answer schema of one call: pages bounded by the bundle's page count, at most one document a page. */
export function modelSplit(pageCount: number) {
  const Page = Type.Integer({ minimum: 1, maximum: pageCount })
  return Type.Object(
    {
      documents: Type.Array(
        Type.Object(
          {
            docType: Text,
            title: Text,
            pageStart: Page,
            pageEnd: Page,
            party: Type.Union([Type.String(), Type.Null()]),
            date: Type.Union([Type.String(), Type.Null()]),
            summary: Text,
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: pageCount },
      ),
    },
    { additionalProperties: false },
  )
}
type ModelSplit = Static<ReturnType<typeof modelSplit>>
type ModelDocument = ModelSplit['documents'][number]

/**
 * What is wrong with the model's page ranges, in words the model can act on; [] when nothing is.
 * Expects `docs` sorted by pageStart (ordering is repaired by code: it loses nothing).
 */
export function rangeProblems(docs: Array<Pick<ModelDocument, 'pageStart' | 'pageEnd'>>, pageCount: number): string[] {
  const problems: string[] = []
  docs.forEach((d, i) => {
    const name = `document ${i + 1} (pages ${d.pageStart}-${d.pageEnd})`
    if (d.pageStart < 1 || d.pageEnd > pageCount) problems.push(`${name} is outside pages 1-${pageCount}`)
    if (d.pageStart > d.pageEnd) problems.push(`${name} starts after it ends`)
    const prev = docs[i - 1]
    if (prev && d.pageStart <= prev.pageEnd) problems.push(`${name} overlaps document ${i} (pages ${prev.pageStart}-${prev.pageEnd})`)
  })
  return problems
}

const byStart = (a: ModelDocument, b: ModelDocument) => a.pageStart - b.pageStart || a.pageEnd - b.pageEnd

export async function handler(input: DocumentInput, ctx: CapabilityContext): Promise<SplitResult> {
  const doc = await ctx.documents.resolve(input)
  const pages = pageTexts(doc)
  const pageCount = pages.length
  const system = [
    'You split a bundle of scanned or merged pages into the separate documents it contains and classify each one.',
    `The bundle has ${pageCount} page${pageCount === 1 ? '' : 's'}${pageCount > 1 ? ', marked "--- page N ---" where its text is given' : ''}.`,
    'Return JSON: {"documents": [{docType, title, pageStart, pageEnd, party, date, summary}]}, in page order:',
    '- docType: the kind of document in lower case (invoice, receipt, letter, contract, statement, form, report, email, other …);',
    '- title: a short title, e.g. "Invoice SPD-4410" or the subject of a letter;',
    `- pageStart, pageEnd: the 1-based first and last page of the document, inclusive, within 1..${pageCount};`,
    '- party: the issuer or sender (the vendor of an invoice, the author of a letter), or null;',
    "- date: the document's own date as YYYY-MM-DD, or null;",
    '- summary: one or two sentences on what the document says.',
    'Every page belongs to at most one document; documents never overlap. A page that continues a document (page 2 of an invoice) belongs to it.',
    pageCount === 1 ? 'With a single page there is exactly one document.' : 'Blank or separator pages may belong to no document.',
  ].join('\n')
  const content = pagedContent(doc, pages, ctx)

  // Overlaps and reversed ranges are what JSON Schema cannot state: they go back to the model in the kernel's
  // corrective retry, then the call fails (free).
  const answer = await ctx.ai.object<ModelSplit>({
    system,
    content,
    schema: modelSplit(pageCount),
    check: (a: ModelSplit) => rangeProblems([...a.documents].sort(byStart), pageCount),
  })
  const docs = [...answer.documents].sort(byStart)

  const warnings: string[] = []
  const documents = docs.map((d, i) => {
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
