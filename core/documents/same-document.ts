// An async job processes the document its acceptance priced, never a later version at the same URL. The
// acceptance records the SHA-256 of every document it read from a fileUrl (in the job's stored input, under
// DOCUMENT_DIGESTS: a JSON pointer of the Doc object → hex digest); the job reads the URL again and is refused
// (422 document_changed, free) when the bytes differ. Keeping the bytes instead would put up to 20 MiB per
// document in the job's input row.
import type { TObject } from '@sinclair/typebox'
import { ApiError } from '../errors.ts'
import type { DocumentFetcher } from './resolve.ts'
import type { DocumentInput } from './schema.ts'

/** The stored input's own property (no capability's request can have it: none allows `$` names). */
export const DOCUMENT_DIGESTS = '$documentDigests'

export type DocumentDigests = Record<string, string>

/** The Doc objects of a request (DocObject): the body itself, or its Doc-valued properties (compare's a, b). */
export function documentsOf(request: TObject, input: Record<string, unknown>): Array<{ doc: DocumentInput; at: string }> {
  const isDoc = (schema: unknown) => 'fileUrl' in ((schema as { properties?: object }).properties ?? {})
  if (isDoc(request)) return [{ doc: input, at: '' }]
  return Object.entries(request.properties)
    .filter(([name, schema]) => isDoc(schema) && input[name] !== undefined)
    .map(([name]) => ({ doc: input[name] as DocumentInput, at: `/${name}` }))
}

/** Hex SHA-256, hashed on libuv's thread pool (WebCrypto): 20 MiB never holds the event loop. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)).toString('hex')
}

/** `fetch`, telling `record` the digest of what it read. */
export function recordingDigest(fetch: DocumentFetcher, record: (sha256: string) => void): DocumentFetcher {
  return async (url, signal) => {
    const fetched = await fetch(url, signal)
    record(await sha256Hex(fetched.bytes))
    return fetched
  }
}

/** `fetch`, refusing bytes whose digest is not `sha256` (the Doc object at `at` of the job's input). */
export function requiringDigest(fetch: DocumentFetcher, sha256: string, at: string): DocumentFetcher {
  return async (url, signal) => {
    const fetched = await fetch(url, signal)
    if ((await sha256Hex(fetched.bytes)) !== sha256) {
      const message =
        'the document at fileUrl changed since the job was accepted (the job was priced for the document read then); nothing was charged'
      throw new ApiError('document_changed', message, [{ path: `${at}/fileUrl`, message }])
    }
    return fetched
  }
}

/**
 * A job's input without its recorded digests, and the digest each of its Doc objects must match (by identity:
 * the handler resolves the objects of the input it is given).
 */
export function withoutDigests(
  request: TObject,
  stored: Record<string, unknown>,
): { input: Record<string, unknown>; digests: Map<DocumentInput, { sha256: string; at: string }> } {
  const { [DOCUMENT_DIGESTS]: recorded, ...input } = stored
  const digests = new Map<DocumentInput, { sha256: string; at: string }>()
  const byPath = (recorded ?? {}) as DocumentDigests
  for (const { doc, at } of documentsOf(request, input)) {
    const sha256 = byPath[at]
    if (sha256 !== undefined) digests.set(doc, { sha256, at })
  }
  return { input, digests }
}
