import type { TSchema } from '@sinclair/typebox'
import { ApiError } from '../errors.ts'
import type { ModelProvider } from '../models/provider.ts'
import type { Capability } from '../registry.ts'
import { ajv } from '../validation.ts'

/**
 * Marks a nullable response property whose `null` is an answer ("explicitly none", e.g. a requested field the
 * document does not have, or a record's own null value), so the kernel keeps it. Say why in the folder's README.
 */
export const EXPLICIT_NULL = 'x-explicit-null'

type Schema = Record<string, any>

/**
 * One rule for unknown values in every capability's result (issue 14): a nullable property is published as
 * optional and without null, and a null in the handler's result is left out. Manifests keep nullable fields
 * (the model answers with them); the document and the caller never see null, except where EXPLICIT_NULL says.
 */
export function publishedResultSchema(schema: TSchema): Schema {
  return unknownsOptional(JSON.parse(JSON.stringify(schema)))
}

function unknownsOptional(s: Schema): Schema {
  if (!s || typeof s !== 'object') return s
  if (s.properties) {
    for (const [key, prop] of Object.entries<Schema>(s.properties)) {
      if (allowsNull(prop) && !prop[EXPLICIT_NULL]) {
        s.properties[key] = withoutNull(prop)
        if (Array.isArray(s.required)) s.required = s.required.filter((r: string) => r !== key)
        if (s.required?.length === 0) delete s.required
      }
      unknownsOptional(s.properties[key])
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) for (const sub of s[key] ?? []) unknownsOptional(sub)
  for (const key of ['items', 'additionalProperties'] as const) if (typeof s[key] === 'object') unknownsOptional(s[key])
  for (const sub of Object.values<Schema>(s.patternProperties ?? {})) unknownsOptional(sub)
  return s
}

function allowsNull(s: Schema): boolean {
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || s.const === null) return true
  return (s.anyOf ?? s.oneOf ?? []).some((sub: Schema) => allowsNull(sub))
}

function withoutNull(s: Schema): Schema {
  if (Array.isArray(s.type)) {
    const type = s.type.filter((t: string) => t !== 'null')
    return { ...s, type: type.length === 1 ? type[0] : type }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!s[key]) continue
    const { [key]: branches, ...rest } = s
    const kept = (branches as Schema[])
      .filter((b) => !(b.type === 'null' || b.const === null))
      .map((b) => (allowsNull(b) ? withoutNull(b) : b))
    return kept.length === 1 ? { ...kept[0], ...rest } : { ...rest, [key]: kept }
  }
  return s
}

/** The result without the nulls its published schema does not allow on optional properties. */
export function dropUnknownNulls(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items
    return typeof items === 'object' ? value.map((v) => dropUnknownNulls(items, v)) : value
  }
  if (!value || typeof value !== 'object') return value
  if (schema.properties) {
    const out: Record<string, unknown> = {}
    // defineProperty: a key named "__proto__" is data here, not the prototype.
    const set = (key: string, v: unknown) =>
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    for (const [key, v] of Object.entries(value)) {
      const prop = Object.hasOwn(schema.properties, key) ? (schema.properties[key] as Schema) : undefined
      if (!prop) set(key, v)
      else if (v === null && !allowsNull(prop) && !schema.required?.includes(key)) continue
      else set(key, dropUnknownNulls(prop, v))
    }
    return out
  }
  const branch = (schema.anyOf ?? schema.oneOf ?? []).find((b: Schema) => b.type === 'object' || b.properties)
  return branch ? dropUnknownNulls(branch, value) : value
}

/**
 * The handler's result, unknown values left out, must match the published response schema; a mismatch is a
 * failed (free) call. Returns the result as published.
 */
export function checkResult(cap: Capability, result: unknown, log: (m: string) => void): object {
  const published = dropUnknownNulls(cap.responseSchema, result)
  if (cap.validateResponse(published)) return published as object
  log(`[${cap.name}] result fails the response schema: ${ajv.errorsText(cap.validateResponse.errors)}`)
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
}

/** Stage 7's first refusal (C11): a model-backed capability with no provider, or no web search where needed. */
export function requireProvider(cap: Capability, provider: ModelProvider): void {
  if (cap.model && !provider.configured) {
    throw new ApiError('inference_unavailable', 'No model provider is configured on this server; nothing was charged.')
  }
  if (cap.webSearch && !provider.webSearch()) {
    throw new ApiError(
      'inference_unavailable',
      `/v1/${cap.name} needs a provider with web search (AI_WIRE_API=responses); nothing was charged.`,
    )
  }
}
