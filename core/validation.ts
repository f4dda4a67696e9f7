// One Ajv instance for the whole process; schemas are compiled once, at boot.
import { Type, type Static, type TSchema, type StringOptions } from '@sinclair/typebox'
import { Ajv, type ErrorObject } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import { ApiError, type ErrorDetail } from './errors.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

// verbose: an error carries its schema, so formatErrors can say a oneOf of alternatives in words.
export const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, verbose: true })
addFormats(ajv)
// RFC 3339 allows a leap second (23:59:60), which no JavaScript Date and no timestamptz parameter can hold: a
// date-time this service accepts is one it can use, so the leap second is refused as invalid (400), never a 500.
const rfc3339DateTime = fullFormats['date-time'] as { validate: (s: string) => boolean }
ajv.addFormat('date-time', { type: 'string', validate: (s: string) => rfc3339DateTime.validate(s) && Number.isFinite(Date.parse(s)) })
// TypeBox marks schemas with symbols Ajv ignores; these keywords document, they do not validate.
ajv.addKeyword('x-example')
ajv.addKeyword('x-explicit-null')

/** Every id the service mints is a UUID; anything else names nothing (404 before any query). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Ajv errors as C2 `details`: JSON-pointer paths to the offending value. A oneOf of alternatives (each branch
 * only requiring one property: a document's file, fileUrl, text) is said in words, "give exactly one of …",
 * instead of Ajv's "must match exactly one schema in oneOf" and one "must have required property" per branch.
 */
export function formatErrors(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  const all = errors ?? []
  const alternatives = new Map<string, string[]>()
  for (const e of all) {
    const names = e.keyword === 'oneOf' ? alternativesOf(e.schema) : null
    if (names) alternatives.set(e.schemaPath, names)
  }
  const branchOfAlternatives = (e: ErrorObject) => [...alternatives.keys()].some((at) => e.schemaPath.startsWith(`${at}/`))
  return all
    .filter((e) => !branchOfAlternatives(e))
    .slice(0, 20)
    .map((e) => {
      let path = e.instancePath
      if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`
      if (e.keyword === 'additionalProperties') path += `/${(e.params as { additionalProperty: string }).additionalProperty}`
      const names = alternatives.get(e.schemaPath)
      if (names)
        return { path: path || '/', message: oneOfMessage(names, (e.params as { passingSchemas: number[] | null }).passingSchemas) }
      return { path: path || '/', message: e.message ?? 'is invalid' }
    })
}

/** The property names of a oneOf whose every branch is `{required: [name]}`; null for any other oneOf. */
function alternativesOf(schema: unknown): string[] | null {
  if (!Array.isArray(schema)) return null
  const names = schema.map((b: { required?: unknown }) =>
    b && typeof b === 'object' && Object.keys(b).length === 1 && Array.isArray(b.required) && b.required.length === 1
      ? String(b.required[0])
      : null,
  )
  return names.every((n) => n !== null) ? names : null
}

function oneOfMessage(names: string[], passing: number[] | null): string {
  const given = passing?.map((i) => names[i]) ?? []
  return `give exactly one of ${names.join(', ')}${given.length ? ` (got ${given.join(' and ')})` : ' (got none)'}`
}

/**
 * For a manifest's `check`: the first entry of a caller's list of names (at `path`) that is blank or names the
 * same thing as an earlier entry under `key` (e.g. case-insensitively), as one detail; [] when there is none.
 */
export function ambiguousEntry(
  list: readonly string[] | undefined,
  path: string,
  key: (name: string) => string,
  say: { blank: string; repeat: (name: string) => string },
): ErrorDetail[] {
  const seen = new Set<string>()
  for (const [i, name] of (list ?? []).entries()) {
    const k = key(name)
    if (k === '' || seen.has(k)) return [{ path: `${path}/${i}`, message: k === '' ? say.blank : say.repeat(name) }]
    seen.add(k)
  }
  return []
}

/**
 * One line of text from a form field or a query parameter: a string (qs and querystring turn `a[]=`, `a[b]=`
 * and repeated names into arrays and objects, which are refused), at most `maxLength`, no control character
 * (PostgreSQL refuses NUL in text).
 */
export const FormText = (maxLength: number, options: StringOptions = {}) =>
  Type.String({ maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]*$', ...options })

/**
 * The input boundary of a form body or a query string, as API bodies have one: the value is checked against
 * `schema` (compiled once) and returned typed, or refused with 400 invalid_request naming the offending fields.
 * A query's integer parameters are published as integers: `?limit=3` arrives as the string "3" and is read as
 * the number 3 when it is written in plain decimal digits; anything else ("abc", "3.0", "1e2") stays a string,
 * which the schema refuses.
 */
export function inputReader<T extends TSchema>(schema: T, what: 'body' | 'form' | 'query' | 'event'): (value: unknown) => Static<T> {
  const check = ajv.compile<Static<T>>(schema)
  const integers = what === 'query' ? integerFields(schema) : []
  return (raw) => {
    const value = integers.length ? withIntegers(raw, integers) : raw
    if (!check(value)) throw new ApiError('invalid_request', `The ${what} does not match its schema.`, formatErrors(check.errors))
    return value
  }
}

/** The top-level properties an object schema types as integers. */
function integerFields(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}
  return Object.entries(properties)
    .filter(([, s]) => s.type === 'integer')
    .map(([name]) => name)
}

const DECIMAL = /^-?\d{1,15}$/

function withIntegers(value: unknown, names: string[]): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  for (const name of names) {
    const v = out[name]
    if (typeof v === 'string' && DECIMAL.test(v)) out[name] = Number(v)
  }
  return out
}
