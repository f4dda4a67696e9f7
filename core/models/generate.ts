// Structured model output (C11): validated against the endpoint's response schema with Ajv, one retry
// that tells the model what was wrong, then 502 inference_failed. Timeouts and client disconnects abort
// the provider call; every failure here is free because the pipeline releases the hold.
import type { TSchema } from '@sinclair/typebox'
import { generateText, jsonSchema, Output, type ModelMessage, type Tool, type UserContent } from 'ai'
import type { ValidateFunction } from 'ajv'
import { ApiError } from '../errors.ts'
import { ajv, formatErrors } from '../validation.ts'
import type { ModelProvider } from './provider.ts'

export interface ObjectRequest {
  system: string
  content: string | UserContent
  /** Defaults to the capability's response schema. */
  schema?: TSchema
  /** Tools the model may call, e.g. the provider's web search. */
  tools?: Record<string, Tool>
}

export interface ObjectResult<T> {
  object: T
  /** URL sources the provider reported (web search). */
  sources: Array<{ url: string; title: string }>
}

export class ClientGone extends Error {}

const validators = new WeakMap<TSchema, ValidateFunction>()
function validatorFor(schema: TSchema): ValidateFunction {
  let v = validators.get(schema)
  if (!v) validators.set(schema, (v = ajv.compile(schema)))
  return v
}

export async function generateObject<T>(
  provider: ModelProvider,
  request: ObjectRequest & { schema: TSchema },
  opts: { signal: AbortSignal; timeoutMs: number },
): Promise<ObjectResult<T>> {
  if (!provider.configured) throw new ApiError('inference_unavailable', 'No model provider is configured on this server.')
  const validate = validatorFor(request.schema)
  const messages: ModelMessage[] = [{ role: 'user', content: request.content }]
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)])
  let problem = ''
  for (let attempt = 0; attempt < 2; attempt++) {
    let result
    try {
      result = await generateText({
        model: provider.language(),
        system: request.system,
        messages,
        tools: request.tools,
        output: Output.object({ schema: jsonSchema(request.schema as never) }),
        abortSignal: signal,
        maxRetries: 0,
      })
    } catch (e) {
      if (opts.signal.aborted) throw new ClientGone('client disconnected')
      if (signal.aborted) throw new ApiError('inference_failed', 'The model provider timed out.')
      if ((e as Error).name === 'AI_NoObjectGeneratedError' || (e as Error).name === 'AI_NoOutputGeneratedError') {
        problem = 'The answer was not valid JSON.'
        messages.push({ role: 'user', content: `${problem} Answer again with only the JSON object.` })
        continue
      }
      throw new ApiError('inference_failed', 'The model provider failed.')
    }
    const object = parseOutput(result)
    if (object !== undefined && validate(object)) {
      const sources = (result.sources ?? [])
        .filter((s) => s.sourceType === 'url')
        .map((s) => ({ url: (s as { url: string }).url, title: (s as { title?: string }).title ?? (s as { url: string }).url }))
      return { object: object as T, sources }
    }
    problem = object === undefined ? 'The answer was not valid JSON.' : formatErrors(validate.errors).map((d) => `${d.path}: ${d.message}`).join('; ')
    messages.push({ role: 'assistant', content: result.text })
    messages.push({ role: 'user', content: `That answer does not match the required JSON schema: ${problem}. Answer again with a corrected JSON object only.` })
  }
  throw new ApiError('inference_failed', 'The model returned output that does not match the response schema.')
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
