import { Type, type Static } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { type Input, type Output } from './schema.ts'

type Value = string | number | boolean | null
type Row = Record<string, Value>

type Change = Output['changes'][number]

/** Records per model call, and characters of records per call: a long batch is split so no answer gets cut off. */
const BATCH_RECORDS = 100
const BATCH_CHARS = 60_000
const PARALLEL_CALLS = 4

/**
 * The model is asked for edits, not for the records back: {index, field, to, reason} per cell it changes. Code
 * applies them to a copy of the input, so the output has the same records, in the same order, by construction.
 */
const ModelAnswer = Type.Object(
  {
    changes: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          field: Type.String(),
          to: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
          reason: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type Edit = Static<typeof ModelAnswer>['changes'][number]

/**
 * Code guarantees: `records` has the same count and order as the input (edits are applied by index to a copy);
 * only the caller's `fields` change when given, otherwise only fields the record already has; `changes` is the
 * diff of input and output, so every entry is a real difference (an edit that keeps the value, names a record
 * outside the batch it was shown, or repeats a cell is dropped), with the model's reason where it gave one.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const allowed = input.fields ? new Set(input.fields) : null
  const batches = batch(input.records)
  const answers = await pool(batches, PARALLEL_CALLS, (b) =>
    ctx.ai.object<Static<typeof ModelAnswer>>({
      system: [
        'You clean and normalise records: consistent casing, formats, units, spelling; fix obvious typos; never invent data.',
        input.fields
          ? `Only these fields may change (set them when missing if the record implies the value): ${JSON.stringify(input.fields)}.`
          : 'Change only fields a record already has; do not add or remove fields.',
        'Answer {"changes": [{"index", "field", "to", "reason"}]}: one entry per cell you change, "index" as shown as R[index], "to" the new value (string, number, boolean or null), "reason" one short line. Leave out cells that stay the same.',
        input.instructions ? `Caller instructions: ${input.instructions}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
      content: b.map((i) => `R[${i}] ${JSON.stringify(input.records[i])}`).join('\n'),
      schema: ModelAnswer,
    }),
  )
  const edits: Edit[] = []
  answers.forEach((answer, n) => {
    const shown = new Set(batches[n])
    edits.push(...answer.changes.filter((e) => shown.has(e.index)))
  })
  return apply(input.records, edits, allowed)
}

export function apply(records: Row[], edits: Edit[], allowed: Set<string> | null): Output {
  const out: Row[] = records.map((r) => ({ ...r }))
  const reasons = new Map<string, string>()
  const touched = new Set<string>()
  for (const e of edits) {
    const record = out[e.index]
    if (!record || !Number.isInteger(e.index)) continue
    const original = records[e.index]!
    const cell = `${e.index}\u0000${e.field}`
    if (touched.has(cell)) continue // the first edit of a cell wins
    if (allowed ? !allowed.has(e.field) : !Object.hasOwn(original, e.field)) continue
    touched.add(cell)
    // defineProperty, not assignment: a field called "__proto__" is data here, never the prototype.
    Object.defineProperty(record, e.field, { value: e.to, enumerable: true, writable: true, configurable: true })
    const reason = e.reason.split('\n')[0]!.trim()
    if (reason) reasons.set(cell, reason)
  }
  const changes: Change[] = []
  out.forEach((after, index) => {
    const before = records[index]!
    for (const field of Object.keys(after)) {
      const had = Object.hasOwn(before, field)
      if (had && Object.is(before[field], after[field])) continue
      const change: Change = { index, field, ...(had ? { from: before[field] } : {}), to: after[field]! }
      const reason = reasons.get(`${index}\u0000${field}`)
      if (reason) change.reason = reason
      changes.push(change)
    }
  })
  return { records: out, changes }
}

/** Consecutive record indexes, at most BATCH_RECORDS and about BATCH_CHARS of JSON per batch. */
function batch(records: Row[]): number[][] {
  const batches: number[][] = []
  let current: number[] = []
  let size = 0
  records.forEach((r, i) => {
    const n = JSON.stringify(r).length
    if (current.length && (current.length === BATCH_RECORDS || size + n > BATCH_CHARS)) {
      batches.push(current)
      current = []
      size = 0
    }
    current.push(i)
    size += n
  })
  if (current.length) batches.push(current)
  return batches
}

/** Runs `fn` over `items` with at most `limit` calls in flight; the first failure fails the whole call. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++
      try {
        results[i] = await fn(items[i]!)
      } catch (e) {
        failed = true // start no further batch: the call has failed
        throw e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
