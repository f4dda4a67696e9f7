// One Ajv instance for the whole process; schemas are compiled once, at boot.
import { Ajv, type ErrorObject } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { ErrorDetail } from './errors.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

export const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })
addFormats(ajv)
// TypeBox marks schemas with symbols Ajv ignores; these keywords document, they do not validate.
ajv.addKeyword('x-example')
ajv.addKeyword('x-explicit-null')

/** Every id the service mints is a UUID; anything else names nothing (404 before any query). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ajv errors as C2 `details`: JSON-pointer paths to the offending value. */
export function formatErrors(errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, 20).map((e) => {
    let path = e.instancePath
    if (e.keyword === 'required') path += `/${(e.params as { missingProperty: string }).missingProperty}`
    if (e.keyword === 'additionalProperties') path += `/${(e.params as { additionalProperty: string }).additionalProperty}`
    return { path: path || '/', message: e.message ?? 'is invalid' }
  })
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
