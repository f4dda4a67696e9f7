// The validator for caller-supplied schemas (capabilities/structure). Plain JavaScript so the validation worker
// (schema-worker.mjs) loads it without a TypeScript loader; ajv-factory.d.mts types it for schemas.ts.
// Never the kernel's shared Ajv (core/validation.ts): its cache would keep every caller's schema forever and its $id
// registry would let one caller's schema collide with another's. Here one instance per draft (building one costs
// ~80 ms), with addUsedSchema: false so no $id is ever registered, and the worker removes each schema after use.
import { createRequire } from 'node:module'

// Loaded on first use: a validation worker starts faster when it loads only the draft it needs.
const require = createRequire(import.meta.url)
const CLASSES = { 'draft-07': 'ajv', '2019-09': 'ajv/dist/2019.js', '2020-12': 'ajv/dist/2020.js' }

/** The `$schema` each supported draft is compiled under (Ajv knows its meta-schema by exactly this id). */
export const META = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

/** The draft a schema declares: none means draft-07; http/https and a trailing "#" do not matter. Else null. */
export function draftOf(schema) {
  const declared = schema.$schema
  if (declared === undefined) return 'draft-07'
  if (typeof declared !== 'string') return null
  const id = declared
    .trim()
    .replace(/#$/, '')
    .replace(/^https?:\/\//, '')
  if (id === 'json-schema.org/draft-07/schema') return 'draft-07'
  if (id === 'json-schema.org/draft/2019-09/schema') return '2019-09'
  if (id === 'json-schema.org/draft/2020-12/schema') return '2020-12'
  return null
}

/**
 * Strict about the schema's words (unknown keywords and unknown formats are errors, so a typo never silently
 * validates nothing), relaxed about style (types need not be repeated next to every keyword). No loadSchema:
 * a $ref to anything outside the schema does not resolve, so nothing is ever fetched.
 */
export function makeAjv(draft) {
  const Class = require(CLASSES[draft])
  const ajv = new Class({
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
    addUsedSchema: false,
    logger: false,
  })
  const addFormats = require('ajv-formats')
  ;(addFormats.default ?? addFormats)(ajv)
  return ajv
}
