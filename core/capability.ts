// The one module a capability folder imports from the kernel (test/kernel/capability-imports.test.ts holds every
// folder to it): defineCapability(), the context its handler receives, and the helpers capabilities share.
// Money, limits, validation, idempotency and jobs never appear in a capability; the kernel owns them.
import type { DocumentInput, ResolvedDocument } from './documents/schema.ts'

export type { DocumentInput, ResolvedDocument }
/** defineCapability() and the context a handler receives (core/run/manifest.ts). */
export { defineCapability, type CapabilityContext, type CapabilityManifest, type SizeRule } from './run/manifest.ts'
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
  perShape,
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
/** The extractors' skeleton: a document resolved, its pages asked about, the pages kept as evidence. */
export { answerDocument, type DocumentAnswer, type DocumentRequest } from './evidence/document-answer.ts'
export { sniffMediaType } from './documents/sniff.ts'
export { compact, MAmount, maskCardNumbers, maskDigits, money, MText, Nullable, Reader, textOf, times } from './documents/values.ts'
/** Evidence (issue 29): quotes looked up in the document, values derived from them, the confidence rule. */
export { confidenceOf, contradicted, DocumentText, type Grounding, type Support } from './evidence/ground.ts'
export { Grounded, Groundings, MSupport, MSupports, SUPPORT_RULES } from './evidence/schema.ts'
export type { Resolver } from './net/address-guard.ts'
/** A capability's own tables: capabilities/<name>/migrations/NNNN-words.ts (core/db/capability-migrations.ts). */
export { Migration } from '@mikro-orm/migrations'
