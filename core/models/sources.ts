// Web-grounded answers (capabilities.md, research and screen): `sources` are built by code from the URL
// sources the provider's web search reported, never from URLs the model writes; the model cites by URL
// and code maps each cited URL to its index in `sources`, dropping what the search did not return.
import { oneLine } from './answers.ts'

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
 * The published `sources` and the URL → index map. At most `max`: when the search returned more, the cited ones
 * are kept first; the provider's order is kept either way.
 */
export function publishSources(unique: Array<Source & { key: string }>, citedKeys: Set<string>, max: number) {
  let kept = unique
  if (unique.length > max) {
    const cited = unique.filter((s) => citedKeys.has(s.key)).slice(0, max)
    const room = max - cited.length
    const keep = new Set([...cited, ...unique.filter((s) => !citedKeys.has(s.key)).slice(0, room)])
    kept = unique.filter((s) => keep.has(s))
  }
  const index = new Map(kept.map((s, i) => [s.key, i]))
  return {
    sources: kept.map(({ url, title }) => ({ url, title })),
    /** Indexes into `sources` of the given URLs, sorted, unknown ones dropped. */
    indexesOf: (urls: string[]) =>
      [...new Set(urls.map((u) => index.get(urlKey(u) ?? '')).filter((i): i is number => i !== undefined))].sort((a, b) => a - b),
  }
}
