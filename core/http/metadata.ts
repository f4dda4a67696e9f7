// Service-Metadata: the caller's own tags for a call, e.g. `{"order":"1182","user":"u_7"}`, kept on its request-log
// row and found again with GET /v1/requests?metadata.order=1182. A small flat object of strings, bounded so that a
// row stays small: a malformed or oversized header is a 400 invalid_request naming the header, never stored.
import { ApiError } from '../errors.ts'

export const METADATA_LIMITS = { keys: 10, keyLength: 40, valueLength: 200, headerBytes: 2048 } as const
/** A tag's name: also the suffix of its filter (metadata.<name>), so no character a query string would encode. */
export const METADATA_KEY = /^[A-Za-z0-9_.:-]{1,40}$/
// eslint-disable-next-line no-control-regex -- the point: PostgreSQL's jsonb refuses \u0000, and no tag needs one
const CONTROL = /[\u0000-\u001f\u007f]/

export type Metadata = Record<string, string>

function refuse(why: string): never {
  throw new ApiError(
    'invalid_request',
    `Service-Metadata must be a JSON object of at most ${METADATA_LIMITS.keys} string tags, e.g. {"order":"1182"}: ${why}.`,
    [{ path: 'header:Service-Metadata', message: why }],
  )
}

/** The header's tags, undefined when it is absent; a 400 when it is not a bounded object of strings. */
export function readMetadata(raw: string | string[] | undefined): Metadata | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') refuse('send the header once')
  if (Buffer.byteLength(raw) > METADATA_LIMITS.headerBytes) refuse(`the header is longer than ${METADATA_LIMITS.headerBytes} bytes`)
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    refuse('the header is not JSON')
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) refuse('the header is not a JSON object')
  const entries = Object.entries(parsed)
  if (entries.length > METADATA_LIMITS.keys) refuse(`more than ${METADATA_LIMITS.keys} tags`)
  for (const [key, value] of entries) {
    if (!METADATA_KEY.test(key)) refuse(`the tag name "${key.slice(0, 50)}" is not 1–40 letters, digits or _ . : -`)
    if (typeof value !== 'string') refuse(`the tag "${key}" is not a string`)
    if (value.length > METADATA_LIMITS.valueLength) refuse(`the tag "${key}" is longer than ${METADATA_LIMITS.valueLength} characters`)
    if (CONTROL.test(value)) refuse(`the tag "${key}" holds a control character`)
  }
  // fromEntries defines each name as data: a tag named __proto__ is a tag, not a prototype.
  return Object.fromEntries<string>(entries as Array<[string, string]>)
}
