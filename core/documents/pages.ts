// A resolved document by page, for the capabilities that count and cite pages (tables, split), and the page
// ranges a caller may send (`pages`, issue 27): only those pages are read, sent and priced, under their own numbers.
import type { UserContent } from 'ai'
import { ApiError } from '../errors.ts'
import type { ResolvedDocument } from './schema.ts'

/** Inclusive 1-based ranges, as parsed from `pages` ("1-3,7" → [[1, 3], [7, 7]]). */
export type PageRanges = ReadonlyArray<readonly [number, number]>

/** Page texts as one text, each page after the marker models cite it by ("--- page N ---"); only `numbers` when given. */
export function markPages(pages: readonly string[], numbers?: readonly number[]): string {
  const shown = numbers ?? pages.map((_, i) => i + 1)
  return shown.map((n) => `--- page ${n} ---\n${pages[n - 1]}`).join('\n\n')
}

/** A text's pages: split at form feeds (a trailing form feed adds no page). */
export function textPages(text: string): string[] {
  const pages = text.split('\f')
  while (pages.length > 1 && pages[pages.length - 1]!.trim() === '') pages.pop()
  return pages
}

/**
 * How many pages textPages finds in `text`, counted without splitting it and only up to `max` + 1: a text
 * with millions of form feeds costs no more than one with `max`.
 */
export function textPageCount(text: string, max: number): number {
  const end = text.trimEnd().length // trailing blank pages are not pages
  let pages = 1
  for (let at = text.indexOf('\f'); at >= 0 && at < end && pages <= max; at = text.indexOf('\f', at + 1)) pages++
  return pages
}

/**
 * The document's pages: PDF pages, text split at form feeds, 1 for an image. With a page selection, every page
 * of the original is there, '' where it was not selected, so page N stays page N (evidence, citations).
 */
export function pageTexts(doc: ResolvedDocument): string[] {
  if (doc.selected || doc.kind === 'pdf') return doc.pages
  if (doc.kind === 'image') return ['']
  return textPages(doc.text)
}

/** Model content with page markers, also for text that has form feeds (ctx.documents.parts sends text as is). */
export function pagedContent(
  doc: ResolvedDocument,
  pages: readonly string[],
  ctx: { documents: { parts(doc: ResolvedDocument): UserContent } },
): UserContent {
  if (doc.kind === 'text' && (pages.length > 1 || doc.selected)) return [{ type: 'text', text: markPages(pages, doc.selected) }]
  return ctx.documents.parts(doc)
}

// Checked here rather than as a schema pattern: the message can say what is wrong, and MCP's tools/list stays small.
const PAGE_LIST = /^ *[1-9][0-9]{0,5}( *- *[1-9][0-9]{0,5})?( *, *[1-9][0-9]{0,5}( *- *[1-9][0-9]{0,5})?)* *$/

/** `pages` as ranges; anything else, or a range that runs backwards, is 400 invalid_request at `path`. */
export function parsePageRanges(spec: string, path: string): PageRanges {
  if (!PAGE_LIST.test(spec)) throw badPages(path, `"${spec}" is not a list of pages such as "1-3,7" (numbers from 1, ranges, commas)`)
  const ranges = spec.split(',').map((part): [number, number] => {
    const [first, last] = part.split('-').map((n) => Number(n.trim()))
    return [first!, last ?? first!]
  })
  const backwards = ranges.find(([a, b]) => b < a)
  if (backwards) throw badPages(path, `${backwards[0]}-${backwards[1]} runs backwards; write the first page first`)
  return ranges
}

/**
 * The selected page numbers, ascending and distinct; a page past `count` is 400 invalid_request naming the count.
 * Linear in `count` whatever the ranges (they may overlap, each up to 999,999 pages long).
 */
export function selectPages(ranges: PageRanges, count: number, path: string): number[] {
  const last = ranges.reduce((max, [, b]) => Math.max(max, b), 0)
  if (last > count) throw badPages(path, `page ${last} is out of range: the document has ${count} page${count === 1 ? '' : 's'}`)
  const chosen = new Uint8Array(count + 1)
  for (const [a, b] of ranges) chosen.fill(1, a, b + 1)
  const selected: number[] = []
  for (let n = 1; n <= count; n++) if (chosen[n]) selected.push(n)
  return selected
}

const badPages = (path: string, why: string) => {
  const message = `pages: ${why}`
  return new ApiError('invalid_request', message, [{ path, message }])
}
