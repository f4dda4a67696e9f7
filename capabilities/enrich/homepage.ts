// The company's homepage as evidence: fetched under the SSRF guard (ctx.fetchPublic), HTML reduced to text
// by code (title, meta descriptions, visible text, JSON-LD), with the company's profile links found in it.
// Linear-time string scanning throughout: the page is untrusted input.
import { publicHref, urlKey, type CapabilityContext } from '../../core/capability.ts'

const HOMEPAGE_MAX_BYTES = 512 * 1024
const TEXT_MAX = 6000
const JSONLD_MAX = 3000

export interface Homepage {
  url: string
  title: string
  description: string
  text: string
  jsonLd: string
  /** Profile links found on the page (anchors and JSON-LD sameAs), by platform. */
  links: Partial<Record<Platform, string>>
  /** Every absolute http(s) URL the page links to, as urlKey()s: evidence a model-proposed link must match. */
  urls: Set<string>
}

/**
 * Which URLs are tried, in order, and the time all attempts together may take. A module-level object so
 * that tests can point it at a local server (`http://<name>:<port>/`); production never changes it.
 */
export const homepageFetch = {
  urls: (domain: string) => [`https://${domain}/`, `https://www.${domain}/`],
  budgetMs: 8000,
}

/** The first URL of homepageFetch.urls that answers with an HTML page with some text, or null. */
export async function fetchHomepage(domain: string, ctx: CapabilityContext): Promise<Homepage | null> {
  const deadline = Date.now() + homepageFetch.budgetMs
  for (const url of homepageFetch.urls(domain)) {
    const left = deadline - Date.now()
    if (left <= 0) break
    const attempt = ctx.fetchPublic(url, { maxBytes: HOMEPAGE_MAX_BYTES })
    attempt.catch(() => undefined) // abandoned when the budget runs out; the guard's own timeout ends it
    let timer: NodeJS.Timeout | undefined
    try {
      const res = await Promise.race([attempt, new Promise<null>((r) => (timer = setTimeout(() => r(null), left)))])
      if (!res) {
        ctx.log(`homepage ${url}: no answer within ${homepageFetch.budgetMs} ms`)
        return null
      }
      const page = readHomepage(res.bytes, res.contentType, res.finalUrl)
      if (page) return page
      ctx.log(`homepage ${url}: no readable HTML`)
    } catch (e) {
      ctx.log(`homepage ${url}: ${(e as Error).message}`)
    } finally {
      clearTimeout(timer)
    }
  }
  return null
}

export function readHomepage(bytes: Buffer, contentType: string | null, finalUrl: string): Homepage | null {
  if (contentType && !/html|xml|text\/plain/i.test(contentType)) return null
  // Cut after the last ">": every `<tag[^>]*>` scan below then ends at a ">" it consumes, so the regexes stay
  // linear even on a page crafted to make them backtrack.
  const decoded = decode(bytes, contentType)
  const last = decoded.lastIndexOf('>')
  const html = last < 0 ? decoded.replace(/</g, ' ') : decoded.slice(0, last + 1)
  if (!contentType && !/<(?:!doctype\s+html|html|head|body|title)\b/i.test(html.slice(0, 4096))) return null

  const title = clean(decodeEntities(between(html, /<title\b[^>]*>/i, /<\/title\s*>/i) ?? '')).slice(0, 300)
  const metas = new Map<string, string>()
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const a = attributes(tag)
    const key = (a.name ?? a.property ?? '').toLowerCase()
    if (
      a.content &&
      ['description', 'og:description', 'og:title', 'og:site_name', 'twitter:description'].includes(key) &&
      !metas.has(key)
    ) {
      metas.set(key, clean(decodeEntities(a.content)).slice(0, 500))
    }
  }
  const description = [...new Set(metas.values())].filter(Boolean).join(' | ')

  const urls = new Set<string>()
  const links: Homepage['links'] = {}
  const addLink = (href: string) => {
    let abs: URL
    try {
      abs = new URL(decodeEntities(href.trim()), finalUrl)
    } catch {
      return
    }
    if (abs.protocol !== 'http:' && abs.protocol !== 'https:') return
    const key = urlKey(abs.href)
    if (key) urls.add(key)
    const platform = platformOf(abs.href)
    if (platform && !links[platform]) links[platform] = canonicalProfile(abs)
  }
  for (const tag of html.match(/<a\b[^>]*>/gi) ?? []) {
    const href = attributes(tag).href
    if (href) addLink(href)
  }

  // Scripts: JSON-LD kept (organisation facts, sameAs profile links), everything else dropped.
  let jsonLd = ''
  const withoutBlocks = removeBlocks(html, (name, openTag, inner) => {
    if (name === 'script' && /application\/ld\+json/i.test(openTag) && jsonLd.length < JSONLD_MAX) {
      jsonLd += clean(inner).slice(0, JSONLD_MAX - jsonLd.length)
      for (const url of sameAs(inner)) addLink(url)
    }
  })
  const text = visibleText(withoutBlocks).slice(0, TEXT_MAX)
  if (!title && !description && !text) return null
  return { url: publicHref(finalUrl) ?? finalUrl, title, description, text, jsonLd, links, urls }
}

function decode(bytes: Buffer, contentType: string | null): string {
  let charset = /charset\s*=\s*["']?([\w:.-]+)/i.exec(contentType ?? '')?.[1]
  if (!charset) charset = /<meta[^>]+charset\s*=\s*["']?([\w:.-]+)/i.exec(bytes.subarray(0, 2048).toString('latin1'))?.[1]
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes)
  } catch {
    return new TextDecoder('utf-8').decode(bytes)
  }
}

function between(s: string, open: RegExp, close: RegExp): string | null {
  const o = open.exec(s)
  if (!o) return null
  const rest = s.slice(o.index + o[0].length)
  const c = close.exec(rest)
  return c ? rest.slice(0, c.index) : null
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    const name = m[1]!.toLowerCase()
    if (!(name in out)) out[name] = m[2] ?? m[3] ?? m[4] ?? ''
  }
  return out
}

// <title> is read on its own above; <head> itself is not dropped whole, or its JSON-LD would go with it.
const BLOCKS = ['script', 'style', 'noscript', 'svg', 'template', 'iframe', 'object', 'title']

/** Removes comments and the blocks above (content included) with indexOf scans: linear, and an unclosed block ends the page. */
function removeBlocks(html: string, onBlock: (name: string, openTag: string, inner: string) => void): string {
  const lower = html.toLowerCase()
  let out = ''
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt < 0) {
      out += html.slice(i)
      break
    }
    out += html.slice(i, lt)
    if (lower.startsWith('<!--', lt)) {
      const end = lower.indexOf('-->', lt + 4)
      i = end < 0 ? html.length : end + 3
      continue
    }
    const name = /^<([a-z]+)/.exec(lower.slice(lt, lt + 12))?.[1]
    if (name && BLOCKS.includes(name)) {
      const openEnd = html.indexOf('>', lt)
      if (openEnd < 0) break
      const close = lower.indexOf(`</${name}`, openEnd + 1)
      const inner = html.slice(openEnd + 1, close < 0 ? html.length : close)
      onBlock(name, html.slice(lt, openEnd + 1), inner)
      if (close < 0) break
      const closeEnd = html.indexOf('>', close)
      i = closeEnd < 0 ? html.length : closeEnd + 1
      out += ' '
      continue
    }
    out += '<'
    i = lt + 1
  }
  return out
}

const BREAKS =
  /<\/?(?:p|div|br|li|ul|ol|h[1-6]|section|article|header|footer|nav|main|aside|tr|td|th|table|dd|dt|blockquote|figcaption|form|button)\b[^>]*>/gi

function visibleText(html: string): string {
  return decodeEntities(html.replace(BREAKS, '\n').replace(/<[^>]*>/g, ' '))
    .split('\n')
    .map(clean)
    .filter(Boolean)
    .join('\n')
}

const clean = (s: string) => s.replace(/[\s\u00a0]+/g, ' ').trim()

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  ndash: '–',
  mdash: '—',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  middot: '·',
  bull: '•',
  euro: '€',
  pound: '£',
}
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : m
    }
    return ENTITIES[e.toLowerCase()] ?? m
  })
}

function sameAs(json: string): string[] {
  let data: unknown
  try {
    data = JSON.parse(json)
  } catch {
    return []
  }
  const out: string[] = []
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || out.length > 50 || v === null || typeof v !== 'object') return
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1))
    for (const [k, x] of Object.entries(v)) {
      if (k === 'sameAs') {
        for (const u of Array.isArray(x) ? x : [x]) if (typeof u === 'string') out.push(u)
      } else walk(x, depth + 1)
    }
  }
  walk(data, 0)
  return out
}

// ---------- profile links ----------

export const PLATFORMS = ['linkedin', 'twitter', 'github', 'facebook', 'instagram', 'youtube', 'crunchbase'] as const
export type Platform = (typeof PLATFORMS)[number]

/** The platform of a company profile URL, or null (share buttons, posts and other pages are not profiles). */
export function platformOf(href: string): Platform | null {
  let u: URL
  try {
    u = new URL(href)
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  const host = u.hostname.toLowerCase().replace(/^(?:www|m|mobile|[a-z]{2})\./, '')
  const path = u.pathname.split('/').filter(Boolean)
  const first = (path[0] ?? '').toLowerCase()
  switch (host) {
    case 'linkedin.com':
      return ['company', 'school', 'showcase'].includes(first) && path.length >= 2 ? 'linkedin' : null
    case 'twitter.com':
    case 'x.com':
      return path.length === 1 && !['intent', 'share', 'home', 'search', 'hashtag', 'i'].includes(first) ? 'twitter' : null
    case 'github.com':
      return path.length === 1 && !['features', 'about', 'pricing', 'login', 'join', 'sponsors', 'orgs'].includes(first) ? 'github' : null
    case 'facebook.com':
      return path.length >= 1 && !['sharer', 'sharer.php', 'share.php', 'dialog', 'plugins', 'tr', 'login.php'].includes(first)
        ? 'facebook'
        : null
    case 'instagram.com':
      return path.length === 1 && !['p', 'explore', 'accounts'].includes(first) ? 'instagram' : null
    case 'youtube.com':
      return (['channel', 'c', 'user'].includes(first) && path.length >= 2) || first.startsWith('@') ? 'youtube' : null
    case 'crunchbase.com':
      return first === 'organization' && path.length >= 2 ? 'crunchbase' : null
    default:
      return null
  }
}

function canonicalProfile(u: URL): string {
  const c = new URL(u.href)
  c.protocol = 'https:'
  c.hash = ''
  c.search = ''
  return publicHref(c.href)!
}
