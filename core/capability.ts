// The one module a capability folder imports from the kernel (test/kernel/capability-imports.test.ts holds every
// folder to it): defineCapability(), the context its handler receives, and the helpers capabilities share.
// Money, limits, validation, idempotency and jobs never appear in a capability; the kernel owns them.
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { UserContent } from 'ai'
import type { Query } from './db/database.ts'
import type { DocumentInput, ResolvedDocument } from './documents/schema.ts'
import type { Chunking } from './models/chunks.ts'
import type { ObjectRequest, ObjectResult } from './models/generate.ts'
import type { ModelProvider, ModelRole } from './models/provider.ts'

export type { DocumentInput, ResolvedDocument }
/** For a required response property whose null is an answer ("explicitly none"); see run/result.ts. */
export { EXPLICIT_NULL } from './run/result.ts'
/** Refusals a handler may throw: 422 `unprocessable`, 502 `inference_failed` (both free). */
export { ApiError, type ErrorDetail } from './errors.ts'
/** Input rules for a manifest's `check`. */
export { ambiguousEntry, formatErrors } from './validation.ts'
/** Answer schemas and prose (issue 15). */
export {
  clip,
  comparableText,
  cutProse,
  DaySchedule,
  distinctTexts,
  literalPattern,
  NonBlank,
  oneLine,
  Prose,
  scheduledDays,
  SendableText,
  StringEnum,
} from './models/answers.ts'
export {
  Citations,
  citedIndexes,
  inlineCitations,
  numberedSources,
  publicHref,
  searchTheWeb,
  uniqueSources,
  urlKey,
} from './models/sources.ts'
/** Documents: the shared input schema, pages, media, sniffing, amounts and dates. */
export { DocObject, InlineFile, Profile } from './documents/schema.ts'
export { normalizeDate, sum, sumWarning, toAmount } from './documents/checks.ts'
export { AUDIO_TYPES, IMAGE_TYPES, loadMedia, urlProblem } from './documents/media.ts'
export { pagedContent, pageTexts } from './documents/pages.ts'
export { sniffMediaType } from './documents/sniff.ts'
export { compact, MAmount, maskCardNumbers, maskDigits, money, MText, Nullable, Reader, textOf, times } from './documents/values.ts'
/** Evidence (issue 29): quotes looked up in the document, values derived from them, the confidence rule. */
export { confidenceOf, contradicted, DocumentText, type Grounding, type Support } from './evidence/ground.ts'
export { Grounded, Groundings, MSupport, MSupports, SUPPORT_RULES } from './evidence/schema.ts'
export type { Resolver } from './net/address-guard.ts'
/** A capability's own tables: capabilities/<name>/migrations/NNNN-words.ts (core/db/capability-migrations.ts). */
export { Migration } from '@mikro-orm/migrations'

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
   * Identical calls are answered from the result cache (C20, core/cache/): for deterministic extracting and
   * classifying capabilities whose every input is in the body or a fetched document (hashed after fetching).
   * Never for creative, web-grounded or stateful ones: the boot refuses it on those (core/registry.ts).
   */
  cache?: boolean
  /**
   * Bump it when the prompt or the answer changes: cached results of another version are never served (default 1).
   */
  version?: number
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
