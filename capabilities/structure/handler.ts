import { Type, type Static } from '@sinclair/typebox'
import type { ErrorObject } from 'ajv'
import { distinctTexts, formatErrors, type CapabilityContext, type ErrorDetail } from '../../core/capability.ts'
import { type Input, type Output } from './schema.ts'
import { usableSchema, validate } from './schemas.ts'

export { limits } from './schemas.ts'
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
 * Code guarantees: the caller's schema is a compilable JSON Schema within the bounds (else 400 at stage 4, free);
 * `valid` is true exactly when `data` validates against it (checked with Ajv, in the schema worker, not claimed by
 * the model); a first answer that fails is retried once with the validation errors; after that the call still
 * succeeds with `valid: false`, the best `data` and the errors in `notes`.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const usable = await usableSchema(input.schema) // checked at stage 4 already: the worker's verdict is kept
  const check = (data: unknown) => validate(usable, data)
  const system = [
    'You turn the input the user sends into JSON that validates against this JSON Schema:',
    JSON.stringify(usable.schema),
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

/** Stage 4 (manifest `check`): the caller's schema is a usable JSON Schema (usableSchema throws the refusal). */
export async function check(input: Input): Promise<ErrorDetail[]> {
  await usableSchema(input.schema)
  return []
}
