// Structured model output (C11): validated against the endpoint's response schema with Ajv, one retry
// that tells the model what was wrong, then 502 inference_failed. Timeouts and client disconnects abort
// the provider call; every failure here is free because the pipeline releases the hold.
import type { TSchema } from '@sinclair/typebox'
import { generateText, jsonSchema, Output, type ModelMessage, type UserContent } from 'ai'
import type { ValidateFunction } from 'ajv'
import { ApiError } from '../errors.ts'
import { ajv, formatErrors } from '../validation.ts'
import type { ModelProvider } from './provider.ts'

export interface ObjectRequest {
  system: string
  content: string | UserContent
  /** Defaults to the capability's response schema. */
  schema?: TSchema
  /** Let the model search the web with the provider's tool (manifests that need it say `webSearch: true`). */
  webSearch?: boolean
}

export interface ObjectResult<T> {
  object: T
  /** URL sources the provider reported (web search); title '' where the provider gave none. */
  sources: Array<{ url: string; title: string }>
}

export class ClientGone extends Error {}

/**
 * Runs one provider call under the call's deadline (C11): aborted with the client (→ ClientGone, free),
 * timed out or failed (→ 502 inference_failed, free, no provider detail). `what` names the model in messages.
 */
export async function runModel<T>(
  what: string,
  opts: { signal: AbortSignal; timeoutMs: number; log?: (m: string) => void },
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)])
  try {
    return await fn(signal)
  } catch (e) {
    if (opts.signal.aborted) throw new ClientGone('client disconnected')
    if (signal.aborted) throw new ApiError('inference_failed', `The ${what} provider timed out.`)
    if (e instanceof ApiError) throw e
    opts.log?.(`${what} provider call failed: ${(e as Error).message}`)
    throw new ApiError('inference_failed', `The ${what} provider failed.`)
  }
}

const validators = new WeakMap<TSchema, ValidateFunction>()
function validatorFor(schema: TSchema): ValidateFunction {
  let v = validators.get(schema)
  if (!v) {
    validators.set(schema, (v = ajv.compile(schema)))
    // Ajv's own cache holds schemas strongly; ours is weak, so a schema built per call is not leaked.
    ajv.removeSchema(schema)
  }
  return v
}

export async function generateObject<T>(
  provider: ModelProvider,
  request: ObjectRequest & { schema: TSchema },
  opts: { signal: AbortSignal; timeoutMs: number; log?: (m: string) => void },
): Promise<ObjectResult<T>> {
  if (!provider.configured) throw new ApiError('inference_unavailable', 'No model provider is configured on this server.')
  const webSearch = request.webSearch ? provider.webSearch() : null
  if (request.webSearch && !webSearch) throw new ApiError('inference_unavailable', 'This needs a provider with web search (AI_WIRE_API=responses).')
  const validate = validatorFor(request.schema)
  const messages: ModelMessage[] = [{ role: 'user', content: request.content }]
  let problem = ''
  for (let attempt = 0; attempt < 2; attempt++) {
    const result = await runModel('model', opts, (abortSignal) =>
      generateText({
        model: provider.language(),
        system: request.system,
        messages,
        tools: webSearch ? { web_search: webSearch } : undefined,
        output: Output.object({ schema: jsonSchema(request.schema as never) }),
        // Our schemas carry optional fields and length bounds that OpenAI's strict mode refuses; Ajv checks
        // the answer against the full schema instead.
        providerOptions: { openai: { strictJsonSchema: false } },
        abortSignal,
        maxRetries: 0,
      }).catch((e: Error) => {
        // Unparseable output is an answer to retry, not a provider failure.
        if (e.name === 'AI_NoObjectGeneratedError' || e.name === 'AI_NoOutputGeneratedError') return null
        throw e
      }),
    )
    if (result === null) {
      problem = 'The answer was not valid JSON.'
      messages.push({ role: 'user', content: `${problem} Answer again with only the JSON object.` })
      continue
    }
    const object = parseOutput(result)
    if (object !== undefined && validate(object)) return { object: object as T, sources: searchSources(result) }
    problem = object === undefined ? 'The answer was not valid JSON.' : formatErrors(validate.errors).map((d) => `${d.path}: ${d.message}`).join('; ')
    messages.push({ role: 'assistant', content: result.text })
    messages.push({ role: 'user', content: `That answer does not match the required JSON schema: ${problem}. Answer again with a corrected JSON object only.` })
  }
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
}

/**
 * Every URL the provider's web search reported: the citations of the answer (`sources`) and the results of the
 * search calls themselves, which a JSON answer may not cite inline. Titles from citations where known, else ''.
 */
function searchSources(result: { sources?: Array<Record<string, any>>; content?: Array<Record<string, any>> }): Array<{ url: string; title: string }> {
  const found = new Map<string, string>()
  for (const s of result.sources ?? []) if (s.sourceType === 'url' && s.url) found.set(s.url, s.title || found.get(s.url) || '')
  for (const part of result.content ?? []) {
    // @ai-sdk/openai 4: titles travel on the answer's citations once the search call lists its sources.
    for (const c of part.type === 'text' ? (part.citations ?? []) : []) {
      if (c.source?.sourceType === 'url' && c.source.url) found.set(c.source.url, found.get(c.source.url) || c.source.title || '')
    }
    if (part.type !== 'tool-result' || !String(part.toolName).includes('search')) continue
    for (const s of part.output?.sources ?? []) if (s.type === 'url' && s.url && !found.has(s.url)) found.set(s.url, '')
  }
  return [...found].map(([url, title]) => ({ url, title }))
}

function parseOutput(result: { output?: unknown; text: string }): unknown {
  try {
    return result.output
  } catch {
    try {
      return JSON.parse(result.text)
    } catch {
      return undefined
    }
  }
}
