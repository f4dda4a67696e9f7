// The source types.test.ts compiles with tsc --strict against the committed SDK: for every operation of the
// published document, a call through its method with the published example (or, for a read, a value of every
// parameter), the published answer assigned to what the method returns, and wrong inputs marked
// `@ts-expect-error` (tsc fails on a mark that meets no error, so each one is a refusal proven).
import { operations, type JsonSchema, type OpenApiDocument, type Parameter } from '../../scripts/generate-sdk.ts'

export interface OperationChecks {
  source: string
  operations: number
  /** Calls compiled with a published request example. */
  requestExamples: number
  /** Published answers (200 examples) checked against the method's result type. */
  responseExamples: number
  /** Wrong bodies and queries marked @ts-expect-error. */
  wrongInputs: number
  /** What cannot be refused: a field that accepts any JSON value. */
  problems: string[]
}

type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'
const JSON_TYPES: JsonType[] = ['string', 'number', 'boolean', 'null', 'array', 'object']
/** A value of each JSON type, as TypeScript source. */
const VALUE_OF: Record<JsonType, string> = { number: '12345', string: "'wrong'", boolean: 'true', null: 'null', array: '[]', object: '{}' }

const jsonTypeOf = (v: unknown): JsonType => (v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as JsonType))

/** The JSON types a schema accepts (all of them when it says nothing). */
function accepted(schema: JsonSchema | undefined, doc: OpenApiDocument): Set<JsonType> {
  if (!schema) return new Set(JSON_TYPES)
  if (schema.$ref) return accepted(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')], doc)
  if (schema.const !== undefined) return new Set([jsonTypeOf(schema.const)])
  if (schema.enum) return new Set(schema.enum.map(jsonTypeOf))
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives && !schema.type && !schema.properties) return new Set(alternatives.flatMap((a) => [...accepted(a, doc)]))
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : []
  if (!types.length) return new Set(JSON_TYPES)
  return new Set(types.map((t) => (t === 'integer' ? 'number' : (t as JsonType))))
}

/** A value the schema refuses by its type, or null when it takes every JSON type. */
function wrongValue(schema: JsonSchema | undefined, doc: OpenApiDocument): string | null {
  const ok = accepted(schema, doc)
  const wrong = JSON_TYPES.find((t) => !ok.has(t))
  return wrong ? VALUE_OF[wrong] : null
}

/** A value of a query or path parameter's schema (the document publishes no example of those). */
function sampleValue(schema: JsonSchema & { minimum?: number; format?: string }): unknown {
  if (schema.const !== undefined) return schema.const
  if (schema.enum) return schema.enum[0]
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return sampleValue(alternatives[0]!)
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1
  if (schema.type === 'boolean') return true
  if (schema.format === 'uuid') return '0b7e4c52-3f0a-4a43-9d0e-5b8f1c7a2e10'
  if (schema.format === 'date-time') return '2026-03-01T10:00:00.000Z'
  return 'x'
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function operationChecks(document: OpenApiDocument): OperationChecks {
  const lines: string[] = [
    "import { Client } from 'metered-capability-sdk'",
    'declare const api: Client',
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false',
    'const same = <A, B>(_check: Equal<A, B>) => undefined',
    '',
  ]
  const counts = { requestExamples: 0, responseExamples: 0, wrongInputs: 0 }
  const problems: string[] = []
  const methods = operations(document)
  methods.forEach((m, i) => {
    const where = `${m.verb.toUpperCase()} ${m.path}`
    const wrong = (label: string, call: string) => {
      lines.push(`  // @ts-expect-error ${where}: ${label}`, `  void ${call}`)
      counts.wrongInputs++
    }
    lines.push(`// ${where} → api.${m.name}()`, `async function op${i}() {`)
    const params = (m.op.parameters ?? []).filter((p): p is Parameter => !('$ref' in p))
    const pathArgs = params.filter((p) => p.in === 'path').map((p) => JSON.stringify(sampleValue(p.schema)))
    const query = params.filter((p) => p.in === 'query')
    const body = m.op.requestBody?.content['application/json']
    const call = (input: string | null, queryArg: string | null) =>
      `api.${m.name}(${[...pathArgs, ...(input !== null ? [input] : []), ...(queryArg !== null ? [queryArg] : [])].join(', ')})`

    let input: string | null = null
    if (body) {
      if (body.example === undefined) problems.push(`${where}: no published request example`)
      else {
        input = JSON.stringify(body.example)
        counts.requestExamples++
      }
    }
    const queryValue = query.length ? JSON.stringify(Object.fromEntries(query.map((p) => [p.name, sampleValue(p.schema)]))) : null
    const paging = m.op['x-pagination']
    if (body && input === null) {
      lines.push('}', '')
      return
    }
    lines.push(`  const got = await ${call(input, queryValue)}`)
    if (m.op['x-price'] !== undefined) lines.push(`  void (await ${call(input, null).replace(/\)$/, ', { dryRun: true })')}).wouldCharge`)
    if (paging)
      lines.push(
        `  for await (const item of ${call(input, queryValue)}) same<typeof item, typeof got[${JSON.stringify(paging.items)}][number]>(true)`,
      )
    const answer = m.op.responses['200']?.content?.['application/json']?.example
    if (answer !== undefined) {
      lines.push(`  const published: typeof got = ${JSON.stringify(answer)}`, '  void published')
      counts.responseExamples++
    }

    if (body && isObject(body.example)) {
      const schema = body.schema.$ref ? document.components.schemas[body.schema.$ref.replace('#/components/schemas/', '')]! : body.schema
      wrong('a field the operation does not have', call(JSON.stringify({ ...body.example, notAField: 1 }), queryValue))
      const alternatives = schema.oneOf ?? schema.anyOf
      if ((schema.required?.length ?? 0) > 0 || alternatives?.every((a) => (a.required?.length ?? 0) > 0))
        wrong('no required field', call('{}', queryValue))
      for (const field of Object.keys(body.example)) {
        const property = schema.properties?.[field]
        const value = wrongValue(property === false ? undefined : property, document)
        if (value === null) {
          problems.push(`${where}: /${field} accepts any JSON value`)
          continue
        }
        const rest = JSON.stringify({ ...body.example, [field]: undefined }).slice(1, -1)
        wrong(`${field} of the wrong type`, call(`{${rest}${rest ? ', ' : ''}${JSON.stringify(field)}: ${value}}`, queryValue))
      }
    }
    if (query.length) {
      wrong('a query parameter the operation does not have', call(input, JSON.stringify({ notAParameter: 1 })))
      for (const p of query) {
        const value = wrongValue(p.schema, document)
        if (value === null) problems.push(`${where}: ?${p.name} accepts any JSON value`)
        else wrong(`?${p.name} of the wrong type`, call(input, `{ ${JSON.stringify(p.name)}: ${value} }`))
      }
    }
    lines.push('}', `void op${i}`, '')
  })
  return { source: lines.join('\n'), operations: methods.length, ...counts, problems }
}
