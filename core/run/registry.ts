// Discovers capabilities/<name>/manifest.ts at boot, like graphile-worker reads its task folder: names
// checked by a regex, sorted, each manifest validated. A bad manifest stops the boot with a message that
// names the folder and says what to fix.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Type, type TObject } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import type { CapabilityManifest } from './manifest.ts'
import { MODEL_ROLES } from '../models/provider.ts'
import { CHUNKINGS } from '../models/chunks.ts'
import { dropUnknownNulls, publishedResultSchema, type JsonSchema } from './result.ts'
import { ajv } from '../validation.ts'
import { capabilityFolders } from '../capability-folders.ts'

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/

export interface Capability extends CapabilityManifest {
  path: string
  /** The request schema with the kernel's own fields (async, callbackUrl) added. */
  requestSchema: TObject
  validateRequest: ValidateFunction
  /** The response as published: nullable properties optional and without null (run/result.ts). */
  responseSchema: JsonSchema
  validateResponse: ValidateFunction
  /** Checked against both schemas at boot; the published examples and a test-mode key's answer (issue 30). */
  example: NonNullable<CapabilityManifest['example']>
}

export class ManifestError extends Error {
  override name = 'ManifestError'
}

/** Fields every capability accepts; async runs only where the manifest allows it (C7). */
const kernelFields = {
  async: Type.Optional(Type.Boolean()),
  callbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
}

/** The capabilities of the folders under `dir` (see capability-folders.ts); throws ManifestError on a bad one. */
export async function loadCapabilities(dir: string): Promise<Capability[]> {
  const capabilities: Capability[] = []
  for (const folder of capabilityFolders(dir)) {
    const where = `capabilities/${folder}`
    if (!NAME.test(folder)) throw new ManifestError(`${where}: folder names must match ${NAME} (lower-case words joined by "-").`)
    const file = path.join(dir, folder, 'manifest.ts')
    let manifest: CapabilityManifest | undefined
    try {
      manifest = ((await import(pathToFileURL(file).href)) as { default?: CapabilityManifest }).default
    } catch (e) {
      throw new ManifestError(`${where}/manifest.ts could not be loaded: ${(e as Error).message}`)
    }
    capabilities.push(checkManifest(manifest, folder, where))
  }
  return capabilities
}

export function checkManifest(m: CapabilityManifest | undefined, folder: string, where: string): Capability {
  const fail = (why: string): never => {
    throw new ManifestError(`${where}/manifest.ts: ${why}`)
  }
  if (!m || typeof m !== 'object') return fail('must `export default defineCapability({...})`.')
  if (m.name !== folder) fail(`name "${m.name}" must equal the folder name "${folder}".`)
  if (!Number.isInteger(m.price) || m.price < 1) fail(`price must be a whole number of credits ≥ 1, got ${m.price}.`)
  if (m.size !== undefined) {
    const { unit, included, perUnit } = m.size
    if (unit !== 'page' && unit !== '1k-tokens') fail(`size.unit must be "page" or "1k-tokens", got ${String(unit)}.`)
    if (!Number.isInteger(included) || included < 0) fail(`size.included must be a whole number ≥ 0, got ${included}.`)
    if (!Number.isInteger(perUnit) || perUnit < 1) fail(`size.perUnit must be a whole number of credits ≥ 1, got ${perUnit}.`)
  }
  if (typeof m.async !== 'boolean') fail('async must be true or false.')
  if (!Number.isInteger(m.ratePerMinute) || m.ratePerMinute < 1) fail(`ratePerMinute must be a whole number ≥ 1, got ${m.ratePerMinute}.`)
  if (m.chunking !== undefined && !CHUNKINGS.includes(m.chunking)) fail(`chunking must be one of ${CHUNKINGS.join(', ')}.`)
  if (m.model !== null && !MODEL_ROLES.includes(m.model)) fail(`model must be null or one of ${MODEL_ROLES.join(', ')}.`)
  if (typeof m.handler !== 'function') fail('handler is missing: export a function (input, ctx) => result.')
  if (!m.request || m.request.type !== 'object') fail('request must be a TypeBox object schema.')
  if (!m.response) fail('response schema is missing.')
  if (!m.example)
    fail('example is missing: give a request and the response it would get (published, and what test-mode keys are answered).')
  const unbounded = findUnbounded(m.request, '')
  if (unbounded)
    fail(`request schema at "${unbounded}" has no bound: give strings maxLength, arrays maxItems, open objects maxProperties (C12).`)
  for (const key of Object.keys(kernelFields))
    if (key in m.request.properties) fail(`request must not declare "${key}": the kernel adds it.`)
  const requestSchema = Type.Object({ ...m.request.properties, ...kernelFields }, { ...stripped(m.request) }) as TObject
  const responseSchema = publishedResultSchema(m.response)
  let validateRequest: ValidateFunction
  let validateResponse: ValidateFunction
  let example: Capability['example']
  try {
    validateRequest = ajv.compile(requestSchema)
    validateResponse = ajv.compile(responseSchema)
    const v = ajv.compile(m.request)
    if (!v(m.example!.request)) fail(`example.request does not match the request schema: ${ajv.errorsText(v.errors)}.`)
    // Published as the handler's result would be: unknown values left out.
    example = { request: m.example!.request, response: dropUnknownNulls(responseSchema, m.example!.response) }
    if (!validateResponse(example.response))
      fail(`example.response does not match the response schema: ${ajv.errorsText(validateResponse.errors)}.`)
  } catch (e) {
    if (e instanceof ManifestError) throw e
    return fail(`schema does not compile: ${(e as Error).message}`)
  }
  return { ...m, path: where, requestSchema, responseSchema, validateRequest, validateResponse, example }
}

function stripped(schema: TObject): Record<string, unknown> {
  const { properties: _p, type: _t, required: _r, ...rest } = schema as unknown as Record<string, unknown>
  return rest
}

/** The first place in a request schema where a string, array or open object has no upper bound. */
export function findUnbounded(s: JsonSchema, at: string): string | null {
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
  if (types.includes('string') && s.maxLength === undefined && s.enum === undefined && s.const === undefined) return at || '/'
  if (types.includes('array')) {
    if (s.maxItems === undefined) return at || '/'
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
      const inner = findUnbounded(s.items, `${at}/items`)
      if (inner) return inner
    }
  }
  if (types.includes('object')) {
    const open = s.additionalProperties !== false || s.patternProperties !== undefined
    if (open && s.maxProperties === undefined) return at || '/'
    const values: Array<[string, JsonSchema]> = [
      ...Object.entries(s.properties ?? {}),
      ...Object.values(s.patternProperties ?? {}).map((v): [string, JsonSchema] => ['*', v]),
      ...(typeof s.additionalProperties === 'object' ? [['*', s.additionalProperties] as [string, JsonSchema]] : []),
    ]
    for (const [k, v] of values) {
      const inner = findUnbounded(v, `${at}/${k}`)
      if (inner) return inner
    }
  }
  const subschemas: Array<[string, JsonSchema]> = [
    ...(['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const).flatMap((key) =>
      (s[key] ?? []).map((sub, i): [string, JsonSchema] => [`${at}(${key}[${i}])`, sub]),
    ),
    ...(Array.isArray(s.items) ? s.items.map((sub, i): [string, JsonSchema] => [`${at}/${i}`, sub]) : []),
  ]
  for (const [where, sub] of subschemas) {
    const inner = findUnbounded(sub, where)
    if (inner) return inner
  }
  return null
}
