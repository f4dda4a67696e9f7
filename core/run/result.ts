// What a handler's result must be before anyone sees it, for sync calls and jobs alike: the published response
// schema (unknown values optional, issue 14) and the check of a result against it.
import type { TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import { ApiError } from '../errors.ts'
import { ajv } from '../validation.ts'

/**
 * Marks a nullable response property whose `null` is an answer ("explicitly none", e.g. a requested field the
 * document does not have, or a record's own null value), so the kernel keeps it. Say why in the folder's README.
 */
export const EXPLICIT_NULL = 'x-explicit-null'

/** A JSON Schema node, as far as the kernel reads one (TypeBox output, published in the OpenAPI document). */
export interface JsonSchema {
  type?: string | string[]
  const?: unknown
  enum?: unknown[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema | JsonSchema[] | boolean
  additionalProperties?: JsonSchema | boolean
  patternProperties?: Record<string, JsonSchema>
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  prefixItems?: JsonSchema[]
  [EXPLICIT_NULL]?: boolean
  [keyword: string]: unknown
}

/**
 * One rule for unknown values in every capability's result (issue 14): a nullable property is published as
 * optional and without null, and a null in the handler's result is left out. Manifests keep nullable fields
 * (the model answers with them); the document and the caller never see null, except where EXPLICIT_NULL says.
 */
export function publishedResultSchema(schema: TSchema): JsonSchema {
  return unknownsOptional(JSON.parse(JSON.stringify(schema)) as JsonSchema)
}

const BRANCHES = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const

function unknownsOptional(s: JsonSchema): JsonSchema {
  if (s.properties) {
    for (const [key, prop] of Object.entries(s.properties)) {
      const published = allowsNull(prop) && !prop[EXPLICIT_NULL] ? withoutNull(prop) : prop
      if (published !== prop) {
        s.properties[key] = published
        s.required = s.required?.filter((r) => r !== key)
        if (!s.required?.length) delete s.required
      }
      unknownsOptional(published)
    }
  }
  for (const key of BRANCHES) for (const sub of s[key] ?? []) unknownsOptional(sub)
  for (const sub of [s.items, s.additionalProperties]) if (sub && typeof sub === 'object' && !Array.isArray(sub)) unknownsOptional(sub)
  for (const sub of Object.values(s.patternProperties ?? {})) unknownsOptional(sub)
  return s
}

function allowsNull(s: JsonSchema): boolean {
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || s.const === null) return true
  return (s.anyOf ?? s.oneOf ?? []).some((sub) => allowsNull(sub))
}

function withoutNull(s: JsonSchema): JsonSchema {
  if (Array.isArray(s.type)) {
    const type = s.type.filter((t) => t !== 'null')
    return { ...s, type: type.length === 1 ? type[0] : type }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const { [key]: branches, ...rest } = s
    if (!branches) continue
    const kept = branches.filter((b) => !(b.type === 'null' || b.const === null)).map((b) => (allowsNull(b) ? withoutNull(b) : b))
    return kept.length === 1 ? { ...kept[0], ...rest } : { ...rest, [key]: kept }
  }
  return s
}

/** The result without the nulls its published schema does not allow on optional properties. */
export function dropUnknownNulls(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items
    return items && typeof items === 'object' && !Array.isArray(items) ? value.map((v) => dropUnknownNulls(items, v)) : value
  }
  if (!value || typeof value !== 'object') return value
  const properties = schema.properties
  if (properties) {
    const out: Record<string, unknown> = {}
    // defineProperty: a key named "__proto__" is data here, not the prototype.
    const set = (key: string, v: unknown) =>
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    for (const [key, v] of Object.entries(value)) {
      const prop = Object.hasOwn(properties, key) ? properties[key] : undefined
      if (!prop) set(key, v)
      else if (v === null && !allowsNull(prop) && !schema.required?.includes(key)) continue
      else set(key, dropUnknownNulls(prop, v))
    }
    return out
  }
  const branch = (schema.anyOf ?? schema.oneOf ?? []).find((b) => b.type === 'object' || b.properties)
  return branch ? dropUnknownNulls(branch, value) : value
}

/**
 * The handler's result, unknown values left out, must match the published response schema; a mismatch is a
 * failed (free) call. Returns the result as published.
 */
export function checkResult(
  capability: { name: string; responseSchema: JsonSchema; validateResponse: ValidateFunction },
  result: unknown,
  log: (m: string) => void,
): object {
  const published = dropUnknownNulls(capability.responseSchema, result)
  if (capability.validateResponse(published)) return published as object
  log(`[${capability.name}] result fails the response schema: ${ajv.errorsText(capability.validateResponse.errors)}`)
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
}
