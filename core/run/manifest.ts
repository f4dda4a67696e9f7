// What a capability folder declares (its manifest) and what its handler receives (its context). The kernel's
// runtime (registry.ts, context.ts, result.ts beside this file) loads and runs it; capabilities see these types
// through core/capability.ts only.
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { UserContent } from 'ai'
import type { Query } from '../db/database.ts'
import type { DocumentInput, ResolvedDocument } from '../documents/schema.ts'
import type { Chunking } from '../models/chunks.ts'
import type { ObjectRequest, ObjectResult } from '../models/generate.ts'
import type { ModelProvider, ModelRole } from '../models/provider.ts'

export interface CapabilityContext {
  requestId: string
  accountId: string
  /** Aborted when the client disconnects (sync) or the job is cancelled. */
  signal: AbortSignal
  ai: {
    provider: ModelProvider
    /** Structured output checked against `schema` (default: this capability's response schema), one retry. */
    object<T = unknown>(request: ObjectRequest): Promise<T>
    /** Same, with the URL sources the provider reported (web search). */
    objectWithSources<T = unknown>(request: ObjectRequest): Promise<ObjectResult<T>>
    /**
     * Any other provider call (image, speech, transcription, embeddings) under the call's deadline: a
     * disconnect, a timeout or a provider error becomes a free failure with a message naming `what`.
     */
    run<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T>
  }
  documents: {
    resolve(input: DocumentInput): Promise<ResolvedDocument>
    /** User-message parts for a model: text with page markers, plus the file or image when useful. */
    parts(doc: ResolvedDocument): UserContent
    /** An image's header checked in the decoder pool (readable, within the pixel limit); throws the 422 to send. */
    inspectImage(bytes: Uint8Array, mediaType: string, path: string): Promise<void>
  }
  /** Fetches a caller-supplied URL under the C12 guard (public addresses; default 20 MiB and 20 s). */
  fetchPublic(
    url: string,
    opts?: { maxBytes?: number; timeoutMs?: number },
  ): Promise<{ bytes: Buffer; contentType: string | null; finalUrl: string }>
  /** For capabilities that keep their own rows (memory). Always scope queries by accountId. */
  db: Query
  log: (message: string) => void
  now(): Date
}

/**
 * Price by size (issue 27): `price` covers `included` units; each unit beyond costs `perUnit` credits. Units are
 * the pages of the request's documents ('page') or its text in 1,000-token units ('1k-tokens', o200k encoding).
 */
export interface SizeRule {
  unit: 'page' | '1k-tokens'
  included: number
  perUnit: number
}

export interface CapabilityManifest<Req extends TObject = TObject, Res extends TSchema = TSchema> {
  name: string
  summary: string
  price: number
  /** Price by size; without it every call costs `price`. */
  size?: SizeRule
  async: boolean
  ratePerMinute: number
  /** The model role the capability calls; null when it runs without a model. */
  model: ModelRole | null
  /** Shipped paused unless config says otherwise (C10); config has the last word. */
  paused?: boolean
  /** Needs the provider's web search tool: without one (e.g. AI_WIRE_API=chat) calls are 503 and free. */
  webSearch?: boolean
  /**
   * A model request over the context budget (AI_CONTEXT_TOKENS) is answered in parts (core/models/chunks.ts):
   * `map-reduce` (the model combines the parts' answers), `merge` (code joins them: lists in page order, other
   * values from the first part that has one), or `refuse` (the default: 422 document_too_long, free).
   */
  chunking?: Chunking
  request: Req
  /**
   * Checks the schema cannot express (sizes of open objects, a caller-supplied schema …), run at stage 4
   * like the schema, so dry runs report them too. Return the problems; none means valid.
   */
  check?: (input: Static<Req>) => Array<{ path: string; message: string }> | Promise<Array<{ path: string; message: string }>>
  response: Res
  example?: { request: Static<Req>; response: Static<Res> }
  handler: (input: Static<Req>, ctx: CapabilityContext) => Promise<Static<Res>>
}

export function defineCapability<Req extends TObject, Res extends TSchema>(m: CapabilityManifest<Req, Res>): CapabilityManifest<Req, Res> {
  return m
}
