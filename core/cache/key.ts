// What makes two calls the same call (C20): the account and mode, the endpoint, the capability's version, the
// models its text calls would try (AI_ROUTES and fallbacks) and the body in canonical form: keys sorted, `async`
// and `callbackUrl` left out, and each document read from a fileUrl replaced by the SHA-256 of the bytes read
// (a URL names whatever it serves when asked; the bytes are what was answered).
import { createHash } from 'node:crypto'
import type { TObject } from '@sinclair/typebox'
import { documentsOf, type DocumentDigests } from '../documents/same-document.ts'

export interface KeyParts {
  accountId: string
  livemode: boolean
  endpoint: string
  version: number
  /** provider:model of each link the call's text requests would try, in order. */
  route: string[]
  request: TObject
  input: Record<string, unknown>
  /** The SHA-256 of each document read from a fileUrl, by the JSON pointer of its Doc object (pipeline/price.ts). */
  digests: DocumentDigests | undefined
}

/** The key's 32 bytes, or null when a fileUrl of the input was not read (its bytes are unknown: not cacheable). */
export function cacheKey(p: KeyParts): Buffer | null {
  const { async: _async, callbackUrl: _callbackUrl, ...body } = p.input
  for (const { doc, at } of documentsOf(p.request, body)) {
    if (typeof doc.fileUrl !== 'string') continue
    const sha256 = p.digests?.[at]
    if (!sha256) return null
    const hashed = { ...doc, fileUrl: `sha256:${sha256}` }
    if (at === '') Object.assign(body, hashed)
    else body[at.slice(1)] = hashed
  }
  const material = canonicalJson([1, p.accountId, p.livemode, p.endpoint, p.version, p.route, body])
  return createHash('sha256').update(material).digest()
}

/** JSON with every object's keys sorted, so the order a client wrote them in does not matter. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}
