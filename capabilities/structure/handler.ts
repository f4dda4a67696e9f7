import { Worker } from 'node:worker_threads'
import { Type, type Static } from '@sinclair/typebox'
import type { ErrorObject, ValidateFunction } from 'ajv'
import { ApiError, distinctTexts, formatErrors, type CapabilityContext, type ErrorDetail } from '../../core/capability.ts'
import { META, draftOf, sharedAjv, type Draft } from './ajv-factory.mjs'
import { type Input, type Output } from './schema.ts'

const MAX_SCHEMA_CHARS = 100_000
const MAX_SCHEMA_DEPTH = 32
/** Time a validation that runs caller-written patterns may take once its worker is up (tests shorten it). */
export const limits = { workerStartMs: 20_000, patternValidationMs: 2_000 }
const MAX_NOTES = 20

/**
 * What the model is asked for. The caller's schema is never handed to ctx.ai.object: the kernel would compile it
 * into the process-wide Ajv (kept forever; an $id could clash with another caller's) and, after its own retry, turn
 * a mismatch into 502, where this endpoint must answer `valid: false` (C11). So the model answers a fixed
 * envelope, and this handler validates and retries against the caller's schema itself. The data travels as JSON
 * text in a string: that is the one envelope that is valid for any schema in providers' strict structured-output
 * modes (which refuse open objects such as `data: {}`).
 */
const Envelope = Type.Object({ json: Type.String(), notes: Type.Array(Type.String()) }, { additionalProperties: false })
type Answer = Static<typeof Envelope>

interface Attempt {
  data: unknown
  parsed: boolean
  problems: string[]
  notes: string[]
}

/**
 * Code guarantees: the caller's schema is a compilable JSON Schema (else 400 invalid_request with details at stage 4, free);
 * `valid` is true exactly when `data` validates against it (checked with Ajv, not claimed by the model); a first
 * answer that fails is retried once with the validation errors; after that the call still succeeds with
 * `valid: false`, the best `data` and the errors in `notes`.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const usable = usableSchema(input.schema)
  // Refused at stage 4 already (`check`); this only narrows the type.
  if ('problems' in usable) throw new ApiError('invalid_request', 'schema is not a usable JSON Schema.', usable.problems)
  const { draft, schema, validate } = usable
  const slow = usesPatterns(schema)
  const check = async (data: unknown): Promise<ErrorObject[]> => {
    if (slow) return validateInWorker(schema, draft, data)
    if (validate(data)) return []
    return validate.errors?.length
      ? [...validate.errors]
      : [{ instancePath: '', schemaPath: '#', keyword: 'validation', params: {}, message: 'does not validate' }]
  }
  const system = [
    'You turn the input the user sends into JSON that validates against this JSON Schema:',
    JSON.stringify(schema),
    'Use only information in the input; never invent values. Where the input lacks something, leave it out or use null if the schema allows it.',
    'Answer {"json": "<the JSON value, serialized as a string>", "notes": [...]}; notes are short remarks on assumptions or information that did not fit, [] when none.',
    input.instructions ? `Caller instructions: ${input.instructions}` : '',
  ]
    .filter(Boolean)
    .join('\n')

  const first = await attempt(ctx, system, input.input, check)
  if (first.problems.length === 0) return { data: first.data, valid: true, notes: first.notes }
  const retry = [
    system,
    '',
    'Your previous answer was:',
    first.parsed ? JSON.stringify(first.data) : '(not valid JSON)',
    `It does not validate: ${first.problems.join('; ')}.`,
    'Answer again with corrected JSON.',
  ].join('\n')
  const second = await attempt(ctx, retry, input.input, check)
  if (second.problems.length === 0) return { data: second.data, valid: true, notes: second.notes }
  // Still invalid: a successful call (spec 4.3). The retry saw the errors, so its answer is kept, unless it is
  // not JSON at all and the first one was.
  const best = second.parsed || !first.parsed ? second : first
  return { data: best.data, valid: false, notes: [...best.problems, ...best.notes].slice(0, MAX_NOTES) }
}

async function attempt(
  ctx: CapabilityContext,
  system: string,
  content: string,
  check: (data: unknown) => Promise<ErrorObject[]>,
): Promise<Attempt> {
  const answer = await ctx.ai.object<Answer>({ system, content, schema: Envelope })
  const notes = distinctTexts(answer.notes, { caseSensitive: true }).slice(0, MAX_NOTES)
  let data: unknown
  try {
    data = JSON.parse(answer.json)
  } catch (e) {
    return { data: null, parsed: false, problems: [`The answer was not valid JSON (${(e as Error).message}).`], notes }
  }
  const problems = formatErrors(await check(data)).map((d) => `${d.path}: ${d.message}`)
  return { data, parsed: true, problems, notes }
}

interface UsableSchema {
  draft: Draft
  /** A copy of the caller's schema with `$schema` spelled the way Ajv knows it. */
  schema: Record<string, unknown>
  validate: ValidateFunction
}

// Stage 4 (`check`) and the handler receive the same schema object: the handler reuses what the check compiled.
// Weak, so nothing outlives the request; a handler given another object (a job) compiles again.
const usable = new WeakMap<object, UsableSchema | { problems: ErrorDetail[] }>()

/** Stage 4 (manifest `check`): the caller's schema is a usable JSON Schema. */
export function check(input: Input): ErrorDetail[] {
  const u = usableSchema(input.schema)
  return 'problems' in u ? u.problems : []
}

/** Size, depth, draft, meta-schema and compilation of the caller's schema: the compiled schema, or what is wrong. */
function usableSchema(raw: Record<string, unknown>): UsableSchema | { problems: ErrorDetail[] } {
  let u = usable.get(raw)
  if (!u) usable.set(raw, (u = compileSchema(raw)))
  return u
}

function compileSchema(raw: Record<string, unknown>): UsableSchema | { problems: ErrorDetail[] } {
  const fail = (path: string, message: string) => ({ problems: [{ path, message }] })
  const text = JSON.stringify(raw)
  if (text.length > MAX_SCHEMA_CHARS) return fail('/schema', `must be at most ${MAX_SCHEMA_CHARS} characters of JSON (is ${text.length})`)
  if (depth(raw) > MAX_SCHEMA_DEPTH) return fail('/schema', `must nest at most ${MAX_SCHEMA_DEPTH} levels deep`)
  const draft = draftOf(raw)
  if (!draft) return fail('/schema/$schema', 'must be draft-07, 2019-09 or 2020-12 (or left out for draft-07)')
  const schema = JSON.parse(text) as Record<string, unknown>
  if (schema.$schema !== undefined) schema.$schema = META[draft]
  const ajv = sharedAjv(draft)
  if (!ajv.validateSchema(schema)) {
    return { problems: formatErrors(ajv.errors).map((d) => ({ path: `/schema${d.path === '/' ? '' : d.path}`, message: d.message })) }
  }
  try {
    return { draft, schema, validate: ajv.compile(schema) }
  } catch (e) {
    return fail('/schema', (e as Error).message)
  } finally {
    // The compiled function keeps working; Ajv's cache would keep every caller's schema (it caches one before
    // compiling it, so also after a failed compile).
    ajv.removeSchema(schema)
  }
}

function depth(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0
  let max = 0
  for (const child of Object.values(v)) max = Math.max(max, depth(child))
  return max + 1
}

/** A schema with `pattern` or `patternProperties` anywhere runs the caller's regular expressions. */
function usesPatterns(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false
  for (const [k, child] of Object.entries(v)) {
    if ((k === 'pattern' || k === 'patternProperties') && typeof child !== 'undefined') return true
    if (usesPatterns(child)) return true
  }
  return false
}

/**
 * Runs the validation in a worker thread with a deadline: a caller's pattern can backtrack catastrophically on the
 * right string (ReDoS), and on the main thread that would stall every request of the process. The worker gets
 * `limits.workerStartMs` to start and compile, then `limits.patternValidationMs` to validate.
 */
function validateInWorker(schema: Record<string, unknown>, draft: Draft, data: unknown): Promise<ErrorObject[]> {
  const problem = (message: string): ErrorObject[] => [{ instancePath: '', schemaPath: '#', keyword: 'validation', params: {}, message }]
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./validate-worker.mjs', import.meta.url), {
      workerData: { schema, draft, data },
      // Plain Node: the worker is JavaScript, and the parent's loaders (tsx, test hooks) only slow its start.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    })
    let settled = false
    let timer = setTimeout(() => finish(problem('validation could not start in time')), limits.workerStartMs)
    function finish(errors: ErrorObject[]) {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      resolve(errors)
    }
    // Whatever happens, `valid` is never true unless Ajv said so.
    worker.on('message', (m: { ready?: true; valid?: boolean; errors?: ErrorObject[] }) => {
      if (m.ready) {
        clearTimeout(timer)
        timer = setTimeout(
          () =>
            finish(
              problem(
                `validation did not finish within ${limits.patternValidationMs / 1000} s (a pattern in the schema backtracks too much on this value)`,
              ),
            ),
          limits.patternValidationMs,
        )
        return
      }
      finish(m.valid === true ? [] : m.errors?.length ? m.errors : problem('does not validate'))
    })
    worker.once('error', (e: Error) => finish(problem(`validation could not run (${e.message})`)))
    worker.once('exit', (code) => finish(problem(`validation could not run (exit code ${code})`)))
  })
}
