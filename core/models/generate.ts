// Structured model output (C11): sent in strict mode where the schema has a strict form, validated against the
// full schema with Ajv and the capability's own answer check, one retry that tells the model what was wrong,
// then 502 inference_failed. Timeouts and client disconnects abort
// the provider call; every failure here is free because the pipeline releases the hold.
import type { LanguageModelV4CallOptions, LanguageModelV4Content, LanguageModelV4ProviderTool } from '@ai-sdk/provider'
import type { TSchema } from '@sinclair/typebox'
import type { ModelMessage, Tool, UserContent } from 'ai'
import { convertToLanguageModelPrompt, resolveLanguageModel } from 'ai/internal'
import type { ValidateFunction } from 'ajv'
import { ApiError } from '../errors.ts'
import { tracedModel } from '../observability/tracing.ts'
import { ajv, formatErrors } from '../validation.ts'
import { ProvidersBusy, tryLinks, type ModelMeter } from './fallback.ts'
import type { ModelProvider } from './provider.ts'
import { nullsToAbsent, strictSchema } from './strict.ts'

export interface ObjectRequest {
  system: string
  content: string | UserContent
  /** Defaults to the capability's response schema. */
  schema?: TSchema
  /** Let the model search the web with the provider's tool (manifests that need it say `webSearch: true`). */
  webSearch?: boolean
  /**
   * Rules JSON Schema cannot state, run on an answer that matches the schema: its problems in words. Any problem
   * gets the one corrective retry, like a schema error; still broken after it → 502 inference_failed (free).
   */
  check?(answer: unknown): string[]
}

export interface ObjectResult<T> {
  object: T
  /** URL sources the provider reported (web search); title '' where the provider gave none. */
  sources: Array<{ url: string; title: string }>
}

export class ClientGone extends Error {}

export interface CallDeadline {
  signal: AbortSignal
  timeoutMs: number
  log?: (m: string) => void
  /** Hears every provider attempt of the call (metrics, log, the call's usage record). */
  meter?: ModelMeter
}

/**
 * Runs one provider call under the call's deadline (C11): aborted with the client (→ ClientGone, free),
 * timed out or failed (→ 502 inference_failed, free, no provider detail). `what` names the model in messages.
 */
export async function runModel<T>(
  what: string,
  opts: { signal: AbortSignal; timeoutMs: number; log?: (m: string) => void },
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // One controller for both ends, its timer cleared when the call ends: AbortSignal.any over AbortSignal.timeout
  // costs more per call, and keeps a timer and a signal per call alive until the deadline passes.
  const controller = new AbortController()
  const { signal } = controller
  const clientGone = () => controller.abort(opts.signal.reason)
  const timer = setTimeout(() => controller.abort(new DOMException('The model call timed out.', 'TimeoutError')), opts.timeoutMs)
  if (opts.signal.aborted) clientGone()
  else opts.signal.addEventListener('abort', clientGone)
  try {
    return await fn(signal)
  } catch (e) {
    if (opts.signal.aborted) throw new ClientGone('client disconnected')
    if (signal.aborted)
      throw new ApiError('inference_failed', `The ${what} provider timed out.`, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) })
    if (e instanceof ApiError) throw e
    if (e instanceof ProvidersBusy)
      throw new ApiError('inference_failed', `The ${what} providers are busy; retry later.`, undefined, {
        'Retry-After': String(e.retryAfterSeconds),
      })
    opts.log?.(`${what} provider call failed: ${(e as Error).message}`)
    const unserved = notServed(e)
    if (unserved)
      throw new ApiError(
        'inference_unavailable',
        `The ${what} provider does not serve the model ${unserved} (it answered 404); nothing was charged.`,
      )
    const busy = upstreamBusy(e)
    if (busy)
      throw new ApiError('inference_failed', `The ${what} provider is busy; retry later.`, undefined, { 'Retry-After': String(busy) })
    throw new ApiError('inference_failed', `The ${what} provider failed.`)
  } finally {
    clearTimeout(timer)
    opts.signal.removeEventListener('abort', clientGone)
  }
}

/** A provider's 404: the model asked for (quoted), as the request named it. */
function notServed(e: unknown): string | null {
  const { statusCode, requestBodyValues } = e as { statusCode?: number; requestBodyValues?: { model?: unknown } }
  if (statusCode !== 404) return null
  return typeof requestBodyValues?.model === 'string' ? `"${requestBodyValues.model}"` : 'it was asked for'
}

/** Seconds a caller should wait after a timeout or a busy provider (a retry can succeed; nothing was charged). */
const RETRY_AFTER_SECONDS = 5

/** An upstream 429 or 503 (the provider says "later"): its own Retry-After in seconds if sane, else ours. */
function upstreamBusy(e: unknown): number | null {
  const { statusCode, responseHeaders } = e as { statusCode?: number; responseHeaders?: Record<string, string> }
  if (statusCode !== 429 && statusCode !== 503) return null
  const theirs = Number(responseHeaders?.['retry-after'])
  return Number.isInteger(theirs) && theirs >= 1 && theirs <= 600 ? theirs : RETRY_AFTER_SECONDS
}

/** An answer schema ready for use: its Ajv validator and its strict form (null: sent non-strict). */
interface Compiled {
  validate: ValidateFunction
  strict: Record<string, unknown> | null
}
// Answer schemas by content: a schema a capability builds per call (from the caller's labels, counts …) is swapped
// for the first one seen with the same JSON, so everything cached per schema object (its validator and strict form
// here, its text and output cap in chunks.ts) is derived once per distinct shape, not per call; least recently
// used shapes go first. A schema object seen before (the static schemas of most capabilities, a swapped-in one)
// is known by identity, which skips serializing it. BENCHMARKS.md has the compile cost.
const byContent = new Map<string, TSchema>()
const settled = new WeakSet<TSchema>()
const SCHEMAS_MAX = 500
const compiled = new WeakMap<TSchema, Compiled>()

/** The schema object that stands for every schema with the same JSON as `schema` (this one, when new). */
export function sameSchema(schema: TSchema): TSchema {
  if (settled.has(schema)) return schema
  const key = JSON.stringify(schema)
  let s = byContent.get(key)
  if (s) byContent.delete(key)
  else {
    s = schema
    settled.add(s)
    if (byContent.size >= SCHEMAS_MAX) byContent.delete(byContent.keys().next().value!)
  }
  byContent.set(key, s)
  return s
}

function compileAnswerSchema(schema: TSchema): Compiled {
  const s = sameSchema(schema)
  let c = compiled.get(s)
  if (!c) {
    c = { validate: ajv.compile(s), strict: strictSchema(s) }
    // Ajv's own cache holds every schema it compiled; ours is bounded by the shapes above.
    ajv.removeSchema(s)
    compiled.set(s, c)
  }
  return c
}

export async function generateObject<T>(
  provider: ModelProvider,
  request: ObjectRequest & { schema: TSchema; maxOutputTokens: number },
  opts: CallDeadline,
): Promise<ObjectResult<T>> {
  if (!provider.configured) throw new ApiError('inference_unavailable', 'No model provider is configured on this server.')
  const webSearch = request.webSearch ? provider.webSearch() : null
  if (request.webSearch && !webSearch)
    throw new ApiError('inference_unavailable', 'This needs a provider with web search (AI_WIRE_API=responses).')
  const { validate, strict } = compileAnswerSchema(request.schema)
  const sendStrict = strict !== null && provider.strictSchemas !== false
  const links = provider.language()
  // The language model's own call, as generateText makes it for one step with structured output and no client
  // tools (BENCHMARKS.md has what the layers around it cost), on each link of the fallback chain until one
  // answers. Strict: the provider constrains decoding to the strict form; Ajv still checks the full schema.
  const call: Omit<LanguageModelV4CallOptions, 'prompt' | 'abortSignal'> = {
    // What the provider may charge for an answer is bounded (chunks.ts outputCap); the cost guard counts on it.
    maxOutputTokens: request.maxOutputTokens,
    responseFormat: { type: 'json', schema: sendStrict ? strict : request.schema },
    providerOptions: { openai: { strictJsonSchema: sendStrict } },
    ...(webSearch && { tools: [providerTool('web_search', webSearch)], toolChoice: { type: 'auto' } }),
  }
  const messages: ModelMessage[] = [{ role: 'user', content: request.content }]
  let refusal = 'The model returned output that does not match the response schema.'
  for (let attempt = 0; attempt < 2; attempt++) {
    const result = await runModel('model', opts, (callSignal) =>
      tryLinks(links, provider.attemptTimeoutMs, callSignal, opts.meter, async (link, abortSignal) => {
        const model = tracedModel(resolveLanguageModel(link.language))
        return model.doGenerate({
          ...call,
          prompt: await convertToLanguageModelPrompt({
            prompt: { instructions: request.system, messages },
            supportedUrls: await model.supportedUrls,
            download: undefined,
            abortSignal,
            provider: model.provider.split('.')[0]!,
          }),
          abortSignal,
        })
      }),
    )
    const text = answerText(result.content)
    const parsed = parseAnswer(result.structuredOutputText ?? text)
    if (parsed === undefined) {
      // Unparseable output is an answer to retry, not a provider failure.
      messages.push({ role: 'user', content: 'The answer was not valid JSON. Answer again with only the JSON object.' })
      continue
    }
    const object = sendStrict ? nullsToAbsent(parsed, request.schema) : parsed
    let problems: string[]
    if (!validate(object)) problems = formatErrors(validate.errors).map((d) => `${d.path}: ${d.message}`)
    else {
      // Rules the schema cannot state get the same corrective retry as a schema error.
      problems = request.check?.(object) ?? []
      if (!problems.length) return { object: object as T, sources: searchSources(result.content) }
      refusal = `The model's answer broke a rule of this endpoint after a corrective retry: ${problems.slice(0, 5).join('; ')}`
      messages.push({ role: 'assistant', content: text })
      messages.push({
        role: 'user',
        content: `That answer breaks these rules: ${problems.join('; ')}. Answer again with a corrected JSON object only.`,
      })
      continue
    }
    refusal = 'The model returned output that does not match the response schema.'
    messages.push({ role: 'assistant', content: text })
    messages.push({
      role: 'user',
      content: `That answer does not match the required JSON schema: ${problems.join('; ')}. Answer again with a corrected JSON object only.`,
    })
  }
  throw new ApiError('inference_failed', refusal)
}

/** A provider-defined tool (web search) in the form the language model takes it. */
function providerTool(name: string, tool: Tool): LanguageModelV4ProviderTool {
  if (tool.type !== 'provider') throw new Error(`${name} is not a provider-defined tool`)
  return { type: 'provider', name, id: tool.id, args: tool.args }
}

/** The answer's text: its text parts joined, as generateText's `text`. */
const answerText = (content: LanguageModelV4Content[]): string =>
  content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('')

/**
 * Every URL the provider's web search reported: the citations of the answer (`source` parts and citations on its
 * text) and the results of the search calls themselves, which a JSON answer may not cite inline. Titles from
 * citations where known, else ''.
 */
function searchSources(content: LanguageModelV4Content[]): Array<{ url: string; title: string }> {
  const found = new Map<string, string>()
  for (const part of content)
    if (part.type === 'source' && part.sourceType === 'url' && part.url) found.set(part.url, part.title || found.get(part.url) || '')
  for (const part of content) {
    // @ai-sdk/openai 4: titles travel on the answer's citations once the search call lists its sources.
    for (const c of part.type === 'text' ? (part.citations ?? []) : []) {
      if (c.source.sourceType === 'url' && c.source.url) found.set(c.source.url, found.get(c.source.url) || c.source.title || '')
    }
    if (part.type !== 'tool-result' || !part.toolName.includes('search')) continue
    const { sources } = (part.result ?? {}) as { sources?: Array<{ type?: string; url?: string }> }
    for (const s of sources ?? []) if (s.type === 'url' && s.url && !found.has(s.url)) found.set(s.url, '')
  }
  return [...found].map(([url, title]) => ({ url, title }))
}

/**
 * The answer as JSON, or undefined when it is not JSON. Like the `ai` SDK's parser, an object with a "__proto__"
 * key or a "constructor" holding a "prototype" counts as unparseable: nothing that could reach a prototype.
 */
function parseAnswer(text: string): unknown {
  try {
    return SUSPECT.test(text) ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text)
  } catch {
    return undefined
  }
}
// A superset of what could spell either key: an escape could spell any character.
const SUSPECT = /__|constructor|\\u/
function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype')))
    throw new SyntaxError('forbidden prototype property')
  return value
}
