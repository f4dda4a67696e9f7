// What OpenAI's function calling accepts as a tool, written from its documentation ("Function calling" and
// "Structured Outputs → Supported schemas"): the function name, and the JSON Schema subset of `parameters`.
// Held: the root is an object and not a union; only the documented types and keywords (anyOf is the only
// combinator; oneOf, allOf, not, if/then/else are refused); string formats from the documented list; at most
// 10 levels of nesting, 5000 properties, 1000 enum values and 15,000 characters of property names and enum
// values; `additionalProperties: false` on every object that declares properties.
// Not held (strict mode only, which a host turns on per tool): every property listed in `required`, and no
// open objects (a map's `additionalProperties` schema) — our optional fields and maps are sent non-strict.

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
const KEYWORDS = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', 'description', 'title'],
  ...['pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems'],
])
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

type Schema = Record<string, unknown>

/** Every way `tool` falls outside the subset; empty when OpenAI accepts it. */
export function openAiToolProblems(tool: { name: string; description?: string; inputSchema: Schema }): string[] {
  const problems: string[] = []
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) problems.push(`name "${tool.name}" is not [a-zA-Z0-9_-]{1,64}`)
  if ((tool.description ?? '').length > 1024) problems.push(`description is ${tool.description!.length} characters (max 1024)`)
  const root = tool.inputSchema
  if (root.type !== 'object') problems.push('the root is not type "object"')
  for (const k of ['anyOf', 'oneOf', 'allOf', 'not', 'enum']) if (k in root) problems.push(`the root has "${k}"`)
  let properties = 0
  let enumValues = 0
  let characters = 0
  const walk = (s: unknown, at: string, depth: number): void => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return void problems.push(`${at}: not a schema object`)
    const schema = s as Schema
    if (depth > 10) problems.push(`${at}: nested deeper than 10 levels`)
    for (const k of Object.keys(schema)) if (!KEYWORDS.has(k)) problems.push(`${at}: unsupported keyword "${k}"`)
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : schema.type === undefined ? [] : [schema.type]
    for (const t of types) if (!TYPES.has(t as string)) problems.push(`${at}: unsupported type ${JSON.stringify(t)}`)
    if (!types.length && !schema.anyOf && !schema.enum) problems.push(`${at}: no type, enum or anyOf`)
    if (schema.format !== undefined && !FORMATS.has(schema.format as string))
      problems.push(`${at}: unsupported format ${JSON.stringify(schema.format)}`)
    if (Array.isArray(schema.enum)) {
      enumValues += schema.enum.length
      characters += schema.enum.reduce((n: number, v) => n + String(v).length, 0)
    }
    if (types.includes('object') && Object.keys(schema.properties ?? {}).length) {
      if (schema.additionalProperties !== false) problems.push(`${at}: an object with properties must set additionalProperties: false`)
    }
    if (schema.properties !== undefined) {
      for (const [name, sub] of Object.entries(schema.properties as Schema)) {
        properties++
        characters += name.length
        walk(sub, `${at}/properties/${name}`, depth + 1)
      }
    }
    if (types.includes('array') && schema.items === undefined) problems.push(`${at}: an array without items`)
    if (schema.items !== undefined) walk(schema.items, `${at}/items`, depth + 1)
    if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${at}/additionalProperties`, depth + 1)
    if (schema.anyOf !== undefined) (schema.anyOf as unknown[]).forEach((sub, i) => walk(sub, `${at}/anyOf/${i}`, depth))
  }
  walk(root, '', 0)
  if (properties > 5000) problems.push(`${properties} properties (max 5000)`)
  if (enumValues > 1000) problems.push(`${enumValues} enum values (max 1000)`)
  if (characters > 15_000) problems.push(`${characters} characters of names and enum values (max 15,000)`)
  return problems
}
