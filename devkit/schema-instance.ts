// Random JSON instances of a JSON Schema, from a seeded generator: what a provider with constrained decoding
// may answer to a structured-output request. Covers the keywords the service's answer schemas use (types,
// enum/const, anyOf/oneOf, $ref, properties/required, items and counts, string lengths, formats and patterns,
// number bounds); strings are made of words so prose looks like prose.
import RandExp from 'randexp'
import { resolveRef } from '../core/models/strict.ts'

export type Rng = () => number

/** mulberry32 seeded from a string: the same seed gives the same stream. */
export function seededRng(seed: string): Rng {
  let a = 0x811c9dc5
  for (let i = 0; i < seed.length; i++) a = Math.imul(a ^ seed.charCodeAt(i), 0x01000193)
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v)
const WORDS =
  'the invoice order customer team payment delivery account plan review contract total item note risk date price support quality and of to for with on late due paid new open'.split(
    ' ',
  )
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1))
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!
const pad = (n: number, w = 2) => String(n).padStart(w, '0')

function words(rng: Rng, length: number): string {
  let s = ''
  while (s.length < length) s += (s ? ' ' : '') + pick(rng, WORDS)
  return s.slice(0, length).trimEnd().padEnd(length, 'x')
}

function formatted(rng: Rng, format: string): string | undefined {
  const date = `${int(rng, 2000, 2030)}-${pad(int(rng, 1, 12))}-${pad(int(rng, 1, 28))}`
  const time = `${pad(int(rng, 0, 23))}:${pad(int(rng, 0, 59))}:${pad(int(rng, 0, 59))}Z`
  const hex = (n: number) => Array.from({ length: n }, () => int(rng, 0, 15).toString(16)).join('')
  switch (format) {
    case 'date':
      return date
    case 'date-time':
      return `${date}T${time}`
    case 'time':
      return time
    case 'email':
      return `${pick(rng, WORDS)}${int(rng, 1, 99)}@example.com`
    case 'uri':
    case 'url':
      return `https://example.com/${pick(rng, WORDS)}/${int(rng, 1, 999)}`
    case 'hostname':
      return `${pick(rng, WORDS)}.example.com`
    case 'uuid':
      return `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`
    case 'ipv4':
      return `${int(rng, 1, 223)}.${int(rng, 0, 255)}.${int(rng, 0, 255)}.${int(rng, 1, 254)}`
    case 'duration':
      return `P${int(rng, 1, 30)}D`
    default:
      return undefined
  }
}

function randomString(schema: Record<string, any>, rng: Rng): string {
  const min = schema.minLength ?? 0
  // A pattern bounds the length itself (strict mode writes length bounds as one): no default cap then.
  const max = schema.maxLength ?? (typeof schema.pattern === 'string' ? Infinity : Math.max(min, 80))
  for (let tries = 0; tries < 20; tries++) {
    let s = (schema.format && formatted(rng, schema.format)) ?? undefined
    if (s === undefined && typeof schema.pattern === 'string') {
      // Long length bounds written as a pattern (strict mode) are sampled near their minimum, as prose would be.
      const gen = new RandExp(
        schema.pattern.replace(
          /\{(\d+),(\d*)\}/g,
          (_: string, lo: string, hi: string) => `{${lo},${Math.min(Number(hi || Infinity), Number(lo) + 60)}}`,
        ),
      )
      gen.max = 6
      gen.randInt = (a: number, b: number) => int(rng, a, b)
      s = gen.gen()
    }
    s ??= words(rng, int(rng, min, Math.min(max, min + 60)))
    if (s.length >= min && s.length <= max) return s
  }
  return words(rng, min)
}

function randomNumber(schema: Record<string, any>, rng: Rng, integer: boolean): number {
  let lo = schema.minimum ?? (schema.exclusiveMinimum != null ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : undefined)
  let hi = schema.maximum ?? (schema.exclusiveMaximum != null ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : undefined)
  lo ??= hi != null ? hi - 1000 : -1000
  hi ??= lo + 2000
  if (integer) return int(rng, Math.ceil(lo), Math.floor(hi))
  const v = Math.round((lo + rng() * (hi - lo)) * 100) / 100
  const n = Math.min(hi, Math.max(lo, v))
  return schema.multipleOf ? Math.round(n / schema.multipleOf) * schema.multipleOf : n
}

/** One random instance of `schema` (draft 2020-12 / 07 keywords the service uses). */
export function randomInstance(schema: unknown, rng: Rng, root: unknown = schema, depth = 0): unknown {
  if (schema === true || !isObj(schema)) return words(rng, 8)
  if (depth > 24) return null
  if (typeof schema.$ref === 'string') return randomInstance(resolveRef(schema.$ref, root), rng, root, depth + 1)
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return pick(rng, schema.enum)
  const alt = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alt)) return randomInstance(pick(rng, alt), rng, root, depth + 1)
  let type = schema.type
  if (Array.isArray(type)) type = pick(rng, type)
  type ??= schema.properties ? 'object' : schema.items ? 'array' : 'string'
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      const required = new Set<string>(schema.required ?? [])
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
        if (required.has(k) || rng() < 0.5) out[k] = randomInstance(s, rng, root, depth + 1)
      }
      if (isObj(schema.additionalProperties) && !schema.properties) {
        const n = int(rng, schema.minProperties ?? 0, Math.min(schema.maxProperties ?? 3, (schema.minProperties ?? 0) + 3))
        for (let i = 0; i < n; i++) out[`${pick(rng, WORDS)}${i}`] = randomInstance(schema.additionalProperties, rng, root, depth + 1)
      }
      return out
    }
    case 'array': {
      const min = schema.minItems ?? 0
      const n = int(rng, min, Math.min(schema.maxItems ?? min + 4, min + 4))
      const out: unknown[] = []
      for (let tries = 0; out.length < n && tries < n * 10; tries++) {
        const v = randomInstance(schema.items ?? {}, rng, root, depth + 1)
        if (schema.uniqueItems && out.some((x) => JSON.stringify(x) === JSON.stringify(v))) continue
        out.push(v)
      }
      return out
    }
    case 'integer':
      return randomNumber(schema, rng, true)
    case 'number':
      return randomNumber(schema, rng, false)
    case 'boolean':
      return rng() < 0.5
    case 'null':
      return null
    default:
      return randomString(schema, rng)
  }
}

/**
 * A fake model's structured answers as constrained decoding gives them: a random instance of the exact schema each
 * request sent, from one seeded stream per distinct request (system, messages, schema), so that the answers a kind
 * of request gets are reproducible whatever order concurrent calls arrive in. `clear()` starts every stream anew.
 */
export function seededAnswers() {
  const streams = new Map<string, Rng>()
  return {
    answer(req: { api: 'responses' | 'chat'; system: string; jsonSchema: unknown; body: any }): unknown {
      if (!req.jsonSchema) return undefined
      const messages = req.api === 'responses' ? req.body.input : req.body.messages
      const key = JSON.stringify([req.system, messages, req.jsonSchema])
      let rng = streams.get(key)
      if (!rng) streams.set(key, (rng = seededRng(key)))
      return randomInstance(req.jsonSchema, rng)
    },
    clear: () => streams.clear(),
  }
}
