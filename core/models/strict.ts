// An answer schema in the subset OpenAI's strict structured outputs accept, so the provider constrains decoding
// to it: every property required (an optional one becomes nullable, and null is mapped back to "absent"),
// `additionalProperties: false`, and keywords strict mode refuses moved into the description, where the model
// still reads them. Ajv checks the answer against the full schema afterwards.

/** Keywords strict mode accepts; the rest are moved into `description`. */
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
  '$ref',
  '$defs',
  'definitions',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'pattern',
  'format',
])
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])
/** Keywords that only annotate: dropped, not described. */
const ANNOTATIONS = new Set(['x-example', 'examples', 'default', '$id', '$schema', '$comment', 'readOnly', 'writeOnly'])

type Schema = Record<string, unknown>

/** NonBlank's pattern (core/models/answers.ts). */
const NON_BLANK = '\\S'

/** A pattern for `min..max` characters; `nonBlank`: the first one not whitespace (narrower, never wider). */
function lengthPattern(min: number, max: number | null, nonBlank: boolean): string {
  if (!nonBlank) return `^[\\s\\S]{${min},${max ?? ''}}$`
  return `^\\S[\\s\\S]{${Math.max(0, min - 1)},${max === null ? '' : Math.max(0, max - 1)}}$`
}
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)
const schemas = (v: unknown): Schema[] => (Array.isArray(v) ? v.filter(isObj) : [])

/**
 * The strict form of `schema`, or null when it has no strict form: a root that is not an object, or an open
 * object (a map of caller-chosen keys), which strict mode cannot state. Such a call is sent non-strict.
 */
export function strictSchema(schema: unknown): Schema | null {
  if (!isObj(schema) || schema.type !== 'object') return null
  try {
    return convert(schema)
  } catch (e) {
    if (e instanceof NoStrictForm) return null
    throw e
  }
}

class NoStrictForm extends Error {}

function convert(schema: Schema): Schema {
  const out: Schema = {}
  const moved: string[] = []
  // A string's length bounds have no strict keyword, but a pattern says the same and the decoder obeys it. With
  // the non-blank pattern they fold into one (issue 29: a bound left in the description lets the decoder write an
  // answer Ajv then refuses); any other pattern keeps the bounds in the description.
  const bounded = schema.minLength !== undefined || schema.maxLength !== undefined
  const lengths = bounded && (schema.pattern === undefined || schema.pattern === NON_BLANK)
  if (lengths)
    out.pattern = lengthPattern(
      Number(schema.minLength ?? 0),
      schema.maxLength === undefined ? null : Number(schema.maxLength),
      schema.pattern === NON_BLANK,
    )
  for (const [k, v] of Object.entries(schema)) {
    if (ANNOTATIONS.has(k) || (lengths && (k === 'minLength' || k === 'maxLength' || k === 'pattern'))) continue
    if (k === 'oneOf' || k === 'anyOf') out.anyOf = schemas(v).map(convert)
    else if (k === 'format' && !FORMATS.has(String(v))) moved.push(`format ${String(v)}`)
    else if (!KEPT.has(k)) moved.push(`${k} ${JSON.stringify(v)}`)
    else if (k === 'items') {
      if (!isObj(v)) throw new NoStrictForm() // tuple items
      out.items = convert(v)
    } else if (k === '$defs' || k === 'definitions')
      out[k] = Object.fromEntries(Object.entries(v as Schema).flatMap(([n, s]) => (isObj(s) ? [[n, convert(s)]] : [])))
    else if (k !== 'properties' && k !== 'required' && k !== 'additionalProperties') out[k] = v
  }
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isObj(schema.properties)
  if (isObject) {
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) throw new NoStrictForm()
    if (!isObj(schema.properties) && !Array.isArray(schema.anyOf)) throw new NoStrictForm()
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
    const properties = Object.fromEntries(
      Object.entries(isObj(schema.properties) ? schema.properties : {}).flatMap(([name, s]) =>
        isObj(s) ? [[name, required.has(name) ? convert(s) : nullable(convert(s))]] : [],
      ),
    )
    out.properties = properties
    out.required = Object.keys(properties)
    out.additionalProperties = false
  }
  if (!['type', 'anyOf', 'oneOf', 'enum', 'const', '$ref'].some((k) => k in schema)) {
    throw new NoStrictForm() // an unconstrained value ({}) cannot be stated in strict mode
  }
  if (moved.length) out.description = [out.description, `(${moved.join(', ')})`].filter(Boolean).join(' ')
  return out
}

/** `s` or null, in the form strict mode accepts. */
function nullable(s: Schema): Schema {
  if (typeof s.type === 'string' && !('anyOf' in s) && !('const' in s)) {
    const out: Schema = { ...s, type: [s.type, 'null'] }
    if (Array.isArray(s.enum)) out.enum = [...(s.enum as unknown[]), null]
    return out
  }
  if (Array.isArray(s.type) && s.type.includes('null')) return s
  const { description, ...rest } = s
  return { anyOf: [rest, { type: 'null' }], ...(description ? { description } : {}) }
}

/** The node a local `$ref` ("#/$defs/Item", a JSON Pointer into `root`) names, or undefined. */
export function resolveRef(ref: string, root: unknown): unknown {
  return ref
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((key) => decodeURIComponent(key.replace(/~1/g, '/').replace(/~0/g, '~')))
    .reduce<unknown>((node, key) => (isObj(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined), root)
}

/**
 * The answer with every null that stands for an absent optional property removed, following the original
 * (full) schema; nulls the full schema allows on required properties are kept.
 */
export function nullsToAbsent(value: unknown, schema: unknown, root: unknown = schema): unknown {
  // Only an object or an array can hold a null to remove; leaves return at once (most of an answer's values).
  if (typeof value !== 'object' || value === null || !isObj(schema)) return value
  if (typeof schema.$ref === 'string') return nullsToAbsent(value, resolveRef(schema.$ref, root), root)
  if (Array.isArray(schema.anyOf)) for (const s of schema.anyOf) value = nullsToAbsent(value, s, root)
  if (Array.isArray(schema.oneOf)) for (const s of schema.oneOf) value = nullsToAbsent(value, s, root)
  if (Array.isArray(value)) {
    if (isObj(schema.items)) for (let i = 0; i < value.length; i++) value[i] = nullsToAbsent(value[i], schema.items, root)
    return value
  }
  if (isObj(value) && isObj(schema.properties)) {
    const required = Array.isArray(schema.required) ? schema.required : []
    for (const k of Object.keys(schema.properties)) {
      if (!(k in value)) continue
      if (value[k] === null && !required.includes(k)) delete value[k]
      else value[k] = nullsToAbsent(value[k], schema.properties[k], root)
    }
  }
  return value
}
