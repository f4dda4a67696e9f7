// A resolved document by page, for the capabilities that count and cite pages (tables, split).
import type { UserContent } from 'ai'
import type { ResolvedDocument } from './schema.ts'

/** Page texts as one text, each page after the marker models cite it by ("--- page N ---"). */
export function markPages(pages: readonly string[]): string {
  return pages.map((p, i) => `--- page ${i + 1} ---\n${p}`).join('\n\n')
}

/** The document's pages: PDF pages, text split at form feeds (a trailing form feed adds no page), 1 for an image. */
export function pageTexts(doc: ResolvedDocument): string[] {
  if (doc.kind === 'pdf') return doc.pages
  if (doc.kind === 'image') return ['']
  const pages = doc.text.split('\f')
  while (pages.length > 1 && pages[pages.length - 1]!.trim() === '') pages.pop()
  return pages
}

/** Model content with page markers, also for text that has form feeds (ctx.documents.parts sends text as is). */
export function pagedContent(
  doc: ResolvedDocument,
  pages: readonly string[],
  ctx: { documents: { parts(doc: ResolvedDocument): UserContent } },
): UserContent {
  if (doc.kind === 'text' && pages.length > 1) return [{ type: 'text', text: markPages(pages) }]
  return ctx.documents.parts(doc)
}
