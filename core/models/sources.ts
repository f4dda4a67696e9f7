// Web-grounded answers (capabilities.md: research, screen, enrich): `sources` are built by code from the URL
// sources the provider's web search reported, never from URLs the model writes; research and screen then have
// the model cite them by number, in a schema that bounds the numbers by the sources found.
import { Type } from '@sinclair/typebox'
import { ApiError } from '../errors.ts'
import { NonBlank, oneLine } from './answers.ts'
import type { ObjectRequest, ObjectResult } from './generate.ts'

export interface Source {
  url: string
  title: string
}

/** A comparison key for URLs: host without "www.", no fragment, no utm_* parameters, no trailing slash. */
export function urlKey(href: string): string | null {
  let u: URL
  try {
    u = new URL(href.trim())
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  for (const k of [...u.searchParams.keys()]) if (/^utm_/i.test(k)) u.searchParams.delete(k)
  return `${u.hostname.toLowerCase().replace(/^www\./, '')}${u.pathname.replace(/\/+$/, '')}${u.search}`
}

/**
 * A URL as a response publishes it: http(s) only, no credentials, WHATWG-serialised (punycode host), and the
 * characters RFC 3986 does not allow after the host percent-encoded, so that it is a valid `uri` (Ajv).
 */
export function publicHref(raw: string): string | null {
  let u: URL
  try {
    u = new URL(raw.trim())
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  u.username = ''
  u.password = ''
  const rest = u.href.slice(u.origin.length)
  return u.origin + rest.replace(/%(?![0-9A-Fa-f]{2})/g, '%25').replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c))
}

/** The search's sources in the provider's order: http(s) only, one per URL (first title wins, else the host). */
export function uniqueSources(found: Source[]): Array<Source & { key: string }> {
  const seen = new Set<string>()
  const out: Array<Source & { key: string }> = []
  for (const s of found) {
    const key = urlKey(s.url)
    if (!key || seen.has(key)) continue
    seen.add(key)
    const url = publicHref(s.url)!
    out.push({ key, url, title: oneLine(s.title ?? '') || new URL(url).hostname })
  }
  return out
}

/**
 * Removes inline markdown citations from model text, returning the URLs they pointed to:
 * "Revenue grew ([reuters.com](https://…))." → "Revenue grew." and "[the report](https://…)" → "the report".
 */
export function inlineCitations(text: string): { text: string; urls: string[] } {
  const urls: string[] = []
  const stripped = text
    .replace(/\s*\(\[[^\]\n]{0,300}\]\((https?:\/\/[^\s)]{1,2000})\)\)/g, (_m, url: string) => (urls.push(url), ''))
    .replace(/\[([^\]\n]{0,300})\]\((https?:\/\/[^\s)]{1,2000})\)/g, (_m, label: string, url: string) => (urls.push(url), label))
  return {
    text: stripped
      .replace(/[ \t]+/g, ' ')
      .replace(/ +([.,;:])/g, '$1')
      .trim(),
    urls,
  }
}

/**
 * Web research in two steps (issue 15): the model searches and writes notes; code keeps the search's own sources
 * (http(s), one per URL, at most `max`, in the provider's order); a second structured call then cites them by
 * number (`Citations`), which its schema bounds, so no answer can cite a page the search did not return.
 * No source at all is a failed call (free): `nothing` ends the message.
 */
export async function searchTheWeb(
  ai: { objectWithSources<T>(request: ObjectRequest): Promise<ObjectResult<T>> },
  request: { system: string; content: string },
  max: number,
  nothing: string,
): Promise<{ notes: string; sources: Source[] }> {
  const { object, sources: found } = await ai.objectWithSources<{ notes: string }>({
    ...request,
    system: `${request.system}\nAnswer with {"notes"}: what the pages you found say, with the URL of each.`,
    schema: SearchNotes,
    webSearch: true,
  })
  const sources = uniqueSources(found)
    .slice(0, max)
    .map(({ url, title }) => ({ url, title }))
  if (!sources.length) throw new ApiError('inference_failed', `The web search returned no sources, so ${nothing}. Nothing was charged.`)
  return { notes: object.notes, sources }
}
const SearchNotes = Type.Object({ notes: NonBlank() }, { additionalProperties: false })

/** The sources as a model is shown them for citing by number: "[1] title: url", one a line. */
export const numberedSources = (sources: Source[]): string => sources.map((s, i) => `[${i + 1}] ${s.title}: ${s.url}`).join('\n')

/** Citations of numbered sources (1..count) in an answer schema: at least `minItems`, at most 10. */
export const Citations = (count: number, minItems = 1) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: count }), { minItems, maxItems: Math.min(count, 10) })

/** The 0-based indexes into the sources of the numbers a model cited: ascending, each once. */
export const citedIndexes = (numbers: number[]): number[] => [...new Set(numbers.map((n) => n - 1))].sort((a, b) => a - b)
