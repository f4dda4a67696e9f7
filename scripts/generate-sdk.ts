// `npm run sdk`: generates sdk/src/index.ts from the published OpenAPI document, then compiles sdk/ with tsc
// into sdk/dist (ESM + .d.ts). Nothing here names a route: every schema under components becomes a type, every
// operation a method (a capability's operationId is its name; a kernel route's `listX` becomes `x()`, a `getX`
// without path parameters `x()`, anything else keeps its operationId), so a route added to the document gets
// its method by regeneration alone. The drift test runs this into a temporary folder and compares;
// test/sdk/types.test.ts and test/sdk/operations.test.ts prove the types with tsc --strict.
import { execFileSync } from 'node:child_process'
import { cp, mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TSchema } from '@sinclair/typebox'
import { loadConfig } from '../core/config.ts'
import { openAIProvider } from '../core/models/provider.ts'
import { buildOpenApi } from '../core/openapi.ts'
import { loadCapabilities } from '../core/run/registry.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The document as published by default (no environment): the paused list and the provider change no type. */
export async function publishedDocument(): Promise<OpenApiDocument> {
  const config = loadConfig({})
  const capabilities = await loadCapabilities(path.join(root, 'capabilities'))
  return buildOpenApi(capabilities, config, openAIProvider(config.ai)) as unknown as OpenApiDocument
}

export async function generateSdk(outDir = path.join(root, 'sdk')): Promise<void> {
  if (path.resolve(outDir) !== path.join(root, 'sdk')) {
    await mkdir(path.join(outDir, 'src'), { recursive: true })
    for (const file of ['package.json', 'tsconfig.json', 'README.md', 'src/runtime.ts'])
      await cp(path.join(root, 'sdk', file), path.join(outDir, file))
  }
  await writeFile(path.join(outDir, 'src', 'index.ts'), sdkSource(await publishedDocument()))
  await rm(path.join(outDir, 'dist'), { recursive: true, force: true })
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(outDir, 'tsconfig.json')], {
    stdio: 'inherit',
  })
}

/** What the generator reads of the document. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, Parameter> }
  /** What the service POSTs to receivers: each with the $ref of its body. */
  webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } } }>
}

export interface Operation {
  operationId: string
  summary: string
  parameters?: Array<Parameter | { $ref: string }>
  requestBody?: { required?: boolean; content: { 'application/json': { schema: JsonSchema; example?: unknown } } }
  responses: Record<
    string,
    {
      description: string
      content?: {
        'application/json'?: { schema: JsonSchema; example?: unknown }
        'text/csv'?: object
        'application/x-ndjson'?: { schema: JsonSchema }
      }
      /** the 200 of Service-Dry-Run beside another success (a batch's 202) */
      'x-dry-run'?: boolean
    }
  >
  'x-price'?: number
  'x-async'?: boolean
  'x-pagination'?: { cursor: string; nextCursor: string; items: string }
}

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required?: boolean
  description?: string
  schema: JsonSchema
}

/** The header parameters the SDK takes as call options, by the component that publishes them. */
const HEADER_OPTIONS: Record<string, 'dryRun' | 'idempotencyKey' | 'testOutcome'> = {
  DryRun: 'dryRun',
  IdempotencyKey: 'idempotencyKey',
  TestOutcome: 'testOutcome',
}

/** Names a component may not take as a type (they would shadow a global): published as `<name>Body`. */
const GLOBALS = new Set(['Error', 'Object', 'Array', 'Date', 'Request', 'Response', 'Headers', 'Record', 'Promise', 'Map', 'Set'])
const typeName = (component: string) => (GLOBALS.has(component) ? `${component}Body` : component)

/** Members of BaseClient and the hand-written methods: no operation may take their name. */
const TAKEN = new Set([
  'constructor',
  'baseUrl',
  'apiKey',
  'maxRetries',
  'maxRetryDelayMs',
  'fetcher',
  'lastResponse',
  'request',
  'list',
  'poll',
  'waitForJob',
])

/** A generated method: its operation and the names the generator gave it. */
interface Method {
  path: string
  verb: string
  op: Operation
  name: string
  /** Prefix of its own types (Request, Response, Query). */
  type: string
}

export function sdkSource(document: OpenApiDocument): string {
  const { schemas, parameters } = document.components
  const errorCode = (schemas.Error?.properties?.error as JsonSchema | undefined)?.properties?.code
  const testOutcome = parameters.TestOutcome?.schema
  if (!errorCode || !testOutcome) throw new Error('generate-sdk: the document publishes no Error code or TestOutcome parameter')
  const out: string[] = [
    '// Generated by scripts/generate-sdk.ts from the published OpenAPI document; do not edit (npm run sdk).',
    "import { BaseClient, List, queryString, verifyWebhookSignature, type AcceptedJob, type CallOptions, type RequestOptions, type VerifyOptions, type WaitOptions } from './runtime.js'",
    "export { ApiError, List, WebhookVerificationError, isRetryable, parseRetryAfter, type AcceptedJob, type ApiErrorCode, type CallOptions, type ClientOptions, type ErrorDetail, type RequestOptions, type ResponseInfo, type VerifyOptions, type WaitOptions } from './runtime.js'",
    '',
    "/** The service's stable error codes: branch on them, never on messages. */",
    `export type ErrorCode = ${tsType(errorCode, '')}\n`,
    '/** The refusals a test key can ask for with `testOutcome` (Service-Test-Outcome). */',
    `export type TestOutcome = ${tsType(testOutcome, '')}\n`,
  ]
  for (const [name, schema] of Object.entries(schemas)) out.push(declare(typeName(name), schema))

  const methods = operations(document)
  const body: string[] = []
  for (const m of methods) {
    out.push(...operationTypes(m, document))
    body.push(...methodSource(m, document), '\n')
  }
  const getJob = methods.find((m) => m.verb === 'get' && m.op.operationId === 'getJob')
  if (getJob && schemas.Job) {
    out.push('/** A job whose `result`, once it has succeeded, is R: the result of the call that created it. */')
    out.push("export type JobOf<R> = Omit<Job, 'result'> & { result?: R }\n")
    body.push(
      '  /**\n   * Reads the job until it has succeeded or failed (interval, timeout, abort signal). Given the 202 answer of\n',
      "   * an async call, the job's `result` is typed as that endpoint's result.\n   */\n",
      `  waitForJob<R = NonNullable<Job['result']>>(job: string | AcceptedJob<R>, options?: WaitOptions): Promise<JobOf<R>> {\n`,
      "    const id = typeof job === 'string' ? job : job.jobId\n",
      `    return this.poll(() => this.${getJob.name}(id, { signal: options?.signal }) as Promise<JobOf<R>>, options)\n  }\n`,
    )
  }
  out.push(
    '/** The API client: one method per operation of the published document. */',
    `export class Client extends BaseClient {\n${body.join('').replace(/\n\n$/, '\n')}}\n`,
  )
  // The bodies the document's webhooks POST: a call's callback (a job's WebhookPayload, a batch's
  // BatchWebhookPayload) and each account event type.
  const CALLBACK_BODIES = ['WebhookPayload', 'BatchWebhookPayload'].filter((name) => schemas[name])
  const eventBodies = [
    ...new Set(
      Object.values(document.webhooks ?? {}).flatMap((w) => {
        const ref = w.post?.requestBody?.content?.['application/json']?.schema?.$ref
        const name = ref && typeName(ref.split('/').pop()!)
        return name && !CALLBACK_BODIES.includes(name) ? [name] : []
      }),
    ),
  ]
  if (schemas.WebhookPayload) {
    out.push(
      "/** The body of a job callback (WebhookPayload), POSTed to a call's callbackUrl; a batch's is BatchWebhookPayload. */",
      'export type WebhookEvent = WebhookPayload\n',
      ...(eventBodies.length
        ? [
            '/** The body of an account event, POSTed to webhook endpoints: narrow it on `type`. */',
            `export type AccountEvent = ${eventBodies.join(' | ')}\n`,
          ]
        : []),
      '/**',
      ' * Verifies a webhook delivery (see README) and returns the event: a job callback by default,',
      " * `verifyWebhook<BatchWebhookPayload>(…)` at a batch's callbackUrl, or `verifyWebhook<AccountEvent>(…)` at a webhook",
      ' * endpoint. During a rotation pass both secrets: either one verifies.',
      ' */',
      `export function verifyWebhook<E${eventBodies.length ? ` extends ${['WebhookEvent', ...CALLBACK_BODIES.slice(1), 'AccountEvent'].join(' | ')}` : ''} = WebhookEvent>(rawBody: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string | readonly string[], options?: VerifyOptions): Promise<E> {`,
      '  return verifyWebhookSignature<E>(rawBody, headers, secret, options)',
      '}\n',
    )
  }
  const capabilities = methods.filter((m) => m.op['x-price'] !== undefined)
  out.push(
    '/** Every capability: name, price in credits, and whether it can run as an async job. */',
    `export const CAPABILITIES = ${JSON.stringify(
      Object.fromEntries(capabilities.map((m) => [m.op.operationId, { price: m.op['x-price'], async: m.op['x-async'] === true }])),
      null,
      2,
    )} as const\n`,
  )
  return out.join('\n')
}

/** Every operation of the document with its method name; two operations with one name stop the generator. */
export function operations(document: OpenApiDocument): Method[] {
  const methods: Method[] = []
  const seen = new Map<string, string>()
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [verb, op] of Object.entries(item)) {
      const name = methodName(op, route)
      const where = `${verb.toUpperCase()} ${route}`
      if (TAKEN.has(name) || seen.has(name))
        throw new Error(
          `generate-sdk: ${where} would be the method ${name}(), already ${seen.get(name) ?? 'a member of the client'}; give it another operationId.`,
        )
      seen.set(name, where)
      methods.push({ path: route, verb, op, name, type: pascal(op['x-price'] !== undefined ? op.operationId : name) })
    }
  }
  return methods
}

function methodName(op: Operation, route: string): string {
  if (op['x-price'] !== undefined) return camel(op.operationId)
  const list = /^list([A-Z]\w*)$/.exec(op.operationId)
  if (list) return lowerFirst(list[1]!)
  const get = /^get([A-Z]\w*)$/.exec(op.operationId)
  if (get && !route.includes('{')) return lowerFirst(get[1]!)
  return op.operationId
}

function resolveParameter(p: Parameter | { $ref: string }, document: OpenApiDocument): Parameter & { component?: string } {
  if (!('$ref' in p)) return p
  const component = p.$ref.replace('#/components/parameters/', '')
  return { ...document.components.parameters[component]!, component }
}

const jsonOf = (response: Operation['responses'][string] | undefined) => response?.content?.['application/json']?.schema

/** The success bodies of an operation but the dry-run report (answered only to `dryRun: true`). */
function successTypes(m: Method): { sync: string; accepted: string | null } {
  const isDryRun = (s: JsonSchema) => s.$ref === '#/components/schemas/DryRun'
  const parts: string[] = []
  for (const status of ['200', '201']) {
    if (m.op.responses[status]?.['x-dry-run']) continue
    const schema = jsonOf(m.op.responses[status])
    if (!schema) continue
    const alternatives = (schema.anyOf ?? [schema]).filter((s) => !isDryRun(s))
    parts.push(
      schema.$ref || alternatives.length !== 1 || alternatives[0]!.$ref
        ? union(alternatives.map((s) => tsType(s, '')))
        : `${m.type}Response`,
    )
  }
  const accepted = jsonOf(m.op.responses['202'])
  return {
    // An export (text/csv) is its text.
    sync: parts.length
      ? union(parts)
      : m.op.responses['204']
        ? 'void'
        : m.op.responses['200']?.content?.['text/csv']
          ? 'string'
          : 'unknown',
    accepted: accepted ? tsType(accepted, '') : null,
  }
}

/** The types an operation declares of its own: its request body, its query, its inline result. */
function operationTypes(m: Method, document: OpenApiDocument): string[] {
  const out: string[] = []
  const where = `${m.verb.toUpperCase()} ${m.path}`
  const request = m.op.requestBody?.content['application/json'].schema
  if (request && !request.$ref) out.push(declare(`${m.type}Request`, request, `${where} request`))
  const query = queryParameters(m, document)
  if (query.length) {
    const schema: JsonSchema = {
      type: 'object',
      additionalProperties: false,
      required: query.filter((p) => p.required).map((p) => p.name),
      properties: Object.fromEntries(query.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }])),
    }
    out.push(declare(`${m.type}Query`, schema, `${where} query parameters`))
  }
  for (const status of ['200', '201']) {
    const schema = jsonOf(m.op.responses[status])
    if (!schema || schema.$ref || m.op.responses[status]?.['x-dry-run']) continue
    const alternatives = (schema.anyOf ?? [schema]).filter((s) => s.$ref !== '#/components/schemas/DryRun')
    if (alternatives.length === 1 && !alternatives[0]!.$ref)
      out.push(
        `/** ${where} result${m.op['x-price'] !== undefined ? ' (with the usage of the call)' : ''} */\nexport type ${m.type}Response = ${tsType(alternatives[0]!, '')}\n`,
      )
  }
  return out
}

const queryParameters = (m: Method, document: OpenApiDocument) =>
  (m.op.parameters ?? []).map((p) => resolveParameter(p, document)).filter((p) => p.in === 'query')

function methodSource(m: Method, document: OpenApiDocument): string[] {
  const parameters = (m.op.parameters ?? []).map((p) => resolveParameter(p, document))
  const pathParams = [...m.path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]!)
  const query = queryParameters(m, document)
  const headerOptions = parameters.flatMap((p) =>
    p.in === 'header' && p.component && HEADER_OPTIONS[p.component] ? [HEADER_OPTIONS[p.component]!] : [],
  )
  const idempotent = headerOptions.includes('idempotencyKey')
  const dryRun = headerOptions.includes('dryRun')
  const options =
    headerOptions.length === 3
      ? 'CallOptions'
      : headerOptions.length
        ? `RequestOptions & Pick<CallOptions, ${headerOptions.map((o) => `'${o}'`).join(' | ')}>`
        : 'RequestOptions'
  const request = m.op.requestBody?.content['application/json'].schema
  const input = request ? (request.$ref ? tsType(request, '') : `${m.type}Request`) : null
  const queryRequired = query.some((p) => p.required)
  const args = [
    ...pathParams.map((p) => `${p}: string`),
    ...(input ? [`input${m.op.requestBody?.required ? '' : '?'}: ${input}`] : []),
    ...(query.length ? [`query${queryRequired ? '' : '?'}: ${m.type}Query`] : []),
  ]
  const url = '`' + m.path.replace(/\{(\w+)\}/g, (_, p: string) => `\${encodeURIComponent(${p})}`) + '`'
  const price = m.op['x-price']
  const doc = `  /** ${m.op.summary.replace(/\.$/, '')}.${price !== undefined ? ` ${price} credit${price === 1 ? '' : 's'}${m.op['x-async'] ? '; async: true returns a job' : ''}.` : ''} */\n`
  const signature = (inputType: string | null, optionsArg: string) =>
    [
      ...pathParams.map((p) => `${p}: string`),
      ...(inputType ? [`input: ${inputType}`] : []),
      ...(query.length ? [`query${queryRequired ? '' : '?'}: ${m.type}Query`] : []),
      optionsArg,
    ].join(', ')

  const paging = m.op['x-pagination']
  if (paging) {
    if (m.verb !== 'get' || input) throw new Error(`generate-sdk: ${m.verb} ${m.path}: only a GET without a body can be a list`)
    const page = successTypes(m).sync
    return [
      doc.replace(/ \*\/\n$/, ` Awaited: the first page; \`for await\`: every item of every page. */\n`),
      `  ${m.name}(${[...args, `options?: ${options}`].join(', ')}): List<${page}, ${page}[${JSON.stringify(paging.items)}][number]> {\n`,
      `    return this.list(${url}, ${query.length ? 'query' : 'undefined'}, (page: ${page}) => page[${JSON.stringify(paging.items)}], options)\n  }\n`,
    ]
  }
  const lines = m.op.responses['200']?.content?.['application/x-ndjson']?.schema
  if (lines) {
    // JSON Lines: an async iterator over the lines as they arrive, never the whole answer in memory.
    return [
      doc.replace(/ \*\/\n$/, ` Iterate with \`for await\`: one line at a time, as the server streams them. */\n`),
      `  ${m.name}(${[...args, `options?: ${options}`].join(', ')}): AsyncIterable<${tsType(lines, '')}> {\n`,
      `    return this.jsonLines(${url}, options)\n  }\n`,
    ]
  }
  const { sync, accepted } = successTypes(m)
  const call = `this.request('${m.verb.toUpperCase()}', ${url}${query.length ? ' + queryString(query)' : ''}, ${input ? 'input' : 'undefined'}, options, ${idempotent})`
  const overloads: string[] = []
  const dryRunReport = Object.values(m.op.responses).find((r) => r['x-dry-run'])?.content?.['application/json']?.schema
  if (dryRun)
    overloads.push(
      `  ${m.name}(${signature(input, `options: ${options} & { dryRun: true }`)}): Promise<${dryRunReport ? tsType(dryRunReport, '') : 'DryRun'}>\n`,
    )
  if (m.op['x-async'] && accepted && input) {
    // `async: true` answers the accepted job (typed with its result), `async` false or absent the result; a body
    // whose `async` is only known as boolean gets either.
    const job = `AcceptedJob<${sync}>`
    overloads.push(
      `  ${m.name}(${signature(`${input} & { async: true }`, `options?: ${options}`)}): Promise<${job}>\n`,
      `  ${m.name}(${signature(`${input} & { async?: false }`, `options?: ${options}`)}): Promise<${sync}>\n`,
      `  ${m.name}(${signature(input, `options?: ${options}`)}): Promise<${sync} | ${job}>\n`,
    )
  } else {
    // A route that only queues work (202, no 200; a batch's 202 beside its dry run's report) answers the accepted body alone.
    const result = accepted ? (m.op.responses['200'] && sync !== 'unknown' ? union([sync, accepted]) : accepted) : sync
    if (!overloads.length) {
      return [doc, `  ${m.name}(${[...args, `options?: ${options}`].join(', ')}): Promise<${result}> {\n    return ${call}\n  }\n`]
    }
    overloads.push(`  ${m.name}(${[...args, `options?: ${options}`].join(', ')}): Promise<${result}>\n`)
  }
  return [doc, ...overloads, `  ${m.name}(${[...args, `options?: ${options}`].join(', ')}): Promise<unknown> {\n    return ${call}\n  }\n`]
}

function declare(name: string, schema: TSchema | JsonSchema, fallbackDoc?: string): string {
  const doc = (schema as { description?: string }).description ?? fallbackDoc
  return `${doc ? `/** ${doc.replace(/\*\//g, '*\\/')} */\n` : ''}export type ${name} = ${tsType(schema, '')}\n`
}

const pascal = (name: string) => name.replace(/(^|-)([a-zA-Z0-9])/g, (_, __, c: string) => c.toUpperCase())
const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1)
const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k))

/** The JSON Schema keywords the generator reads. */
export interface JsonSchema {
  $ref?: string
  const?: unknown
  enum?: unknown[]
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  type?: string | string[]
  items?: JsonSchema | JsonSchema[]
  prefixItems?: JsonSchema[]
  /** false: the property must be absent (a variant's forbidden field) */
  properties?: Record<string, JsonSchema | false>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  patternProperties?: Record<string, JsonSchema>
  description?: string
  if?: JsonSchema
  then?: JsonSchema
}

/** JSON Schema (as TypeBox writes it) → a TypeScript type expression. */
export function tsType(schema: TSchema | JsonSchema, indent: string): string {
  const s = schema as JsonSchema
  if (s.$ref) return typeName(s.$ref.replace(/^#\/components\/schemas\//, ''))
  if (s.const !== undefined) return JSON.stringify(s.const)
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (s.properties && (s.anyOf || s.oneOf || s.allOf)) return objectVariants(s, indent)
  const alternatives = s.anyOf ?? s.oneOf
  if (alternatives) return union(alternatives.map((x) => tsType(x, indent)))
  if (s.allOf) return s.allOf.map((x) => paren(tsType(x, indent))).join(' & ')
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
  if (types.length > 1) return union(types.map((type) => tsType({ ...s, type }, indent)))
  switch (types[0]) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array': {
      const tuple = s.prefixItems ?? s.items
      if (Array.isArray(tuple)) return `[${tuple.map((x) => tsType(x, indent)).join(', ')}]`
      return `Array<${tuple ? tsType(tuple, indent) : 'unknown'}>`
    }
    case 'object':
      return objectType(s, indent)
    default:
      return 'unknown'
  }
}

/**
 * An object's properties, and an index signature unless `additionalProperties: false` closes it: JSON Schema
 * objects are open by default, so `properties: {}` alone (a caller's JSON Schema, a map of tags) takes any key.
 */
function objectType(s: JsonSchema, indent: string): string {
  const inner = indent + '  '
  const required = new Set(s.required ?? [])
  const lines: string[] = []
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (v === false) {
      lines.push(`${inner}${key(k)}?: never`)
      continue
    }
    const doc = v.description ? `${inner}/** ${v.description.replace(/\*\//g, '*\\/')} */\n` : ''
    lines.push(`${doc}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${tsType(v, inner)}`)
  }
  const extra = [
    ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : []),
    ...Object.values(s.patternProperties ?? {}),
  ]
  if (extra.length || s.additionalProperties !== false) {
    // The declared properties must fit the index signature too, so it is `unknown` beside them.
    const value = lines.length || !extra.length ? 'unknown' : union(extra.map((x) => tsType(x, inner)))
    lines.push(`${inner}[key: string]: ${value}`)
  }
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>'
}

/**
 * An object whose combinators only constrain its own properties: `oneOf`/`anyOf` of `{ required: [...] }`
 * (the document union file | fileUrl | text: with oneOf, the others are absent) and `allOf` of
 * `if: { op: const } then: { required, forbidden: false }` (one variant per op). Rendered as the properties no
 * variant touches, intersected with the union of the variants.
 */
function objectVariants(s: JsonSchema, indent: string): string {
  const { anyOf, oneOf, allOf, ...base } = s
  const alternatives = oneOf ?? anyOf ?? []
  const conditionals = (allOf ?? []).filter((x) => x.if && x.then)
  if (conditionals.length !== (allOf ?? []).length || (alternatives.length && conditionals.length))
    throw new Error(`generate-sdk: an object with combinators the generator cannot type: ${JSON.stringify(s).slice(0, 200)}`)
  const variants: JsonSchema[] = alternatives.length
    ? alternatives.map((alt) => {
        const others = oneOf ? alternatives.filter((x) => x !== alt).flatMap((x) => x.required ?? []) : []
        const required = alt.required ?? []
        const absent = others.filter((k) => !required.includes(k))
        return { ...alt, properties: { ...alt.properties, ...Object.fromEntries(absent.map((k) => [k, false as const])) } }
      })
    : [
        ...conditionals.map(({ if: when, then }) => ({
          required: [...(when!.required ?? []), ...(then!.required ?? [])],
          properties: { ...when!.properties, ...then!.properties },
        })),
        ...uncovered(base, conditionals),
      ]
  const touched = new Set(variants.flatMap((v) => [...(v.required ?? []), ...Object.keys(v.properties ?? {})]))
  const common = Object.entries(base.properties ?? {}).filter(([k]) => !touched.has(k))
  const variantType = (v: JsonSchema) => {
    const required = new Set([...(base.required ?? []), ...(v.required ?? [])])
    const properties: Record<string, JsonSchema | false> = {}
    for (const k of touched) {
      const own = v.properties?.[k]
      properties[k] = own === false ? false : { ...(base.properties?.[k] || {}), ...own }
    }
    return objectType({ properties, required: [...required], additionalProperties: false }, indent)
  }
  const union$ = union(variants.map(variantType))
  if (!common.length) return union$
  return `${objectType({ ...base, properties: Object.fromEntries(common) }, indent)} & (${union$})`
}

/** The values of an `if` discriminator no conditional names (a variant with no rule of its own), if any. */
function uncovered(base: JsonSchema, conditionals: JsonSchema[]): JsonSchema[] {
  const [field] = Object.keys(conditionals[0]?.if?.properties ?? {})
  const declared = field ? base.properties?.[field] : undefined
  if (!field || !declared) return []
  const values = declared.enum ?? (declared.anyOf ?? []).map((x) => x.const)
  const named = new Set(conditionals.map((c) => (c.if!.properties![field] as JsonSchema).const))
  const rest = values.filter((v) => !named.has(v))
  return rest.length ? [{ required: [field], properties: { [field]: { enum: rest } } }] : []
}

const union = (parts: string[]) => [...new Set(parts)].map(paren).join(' | ')
const paren = (t: string) => (/^[\w"'[\]<>.]+$/.test(t) || t.startsWith('{') || t.startsWith('Array<') ? t : `(${t})`)

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await generateSdk(process.argv[2] ? path.resolve(process.argv[2]) : undefined)
  console.log('sdk/ generated')
}
