// Pieces for asking a model for structured output and for tidying what it answers, shared by capabilities.
import { Type, type TUnsafe } from '@sinclair/typebox'

/**
 * A string enum as `{type: 'string', enum}`: the form providers' strict structured-output modes accept (TypeBox's
 * union of literals becomes `anyOf`). `options` adds keywords such as `description`.
 */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })

/**
 * `build` remembered by its arguments' JSON, for the last `max` distinct arguments: an answer schema a handler
 * builds from its input (the caller's labels, a count) is built once per shape, not per call, and the kernel
 * finds what it derived from that schema (validator, strict form) by identity, without serializing it.
 */
export function perShape<A extends unknown[], S>(build: (...args: A) => S, max = 256): (...args: A) => S {
  const built = new Map<string, S>()
  return (...args) => {
    const key = JSON.stringify(args)
    let s = built.get(key)
    // A hit is deleted and set again below: the most recently used last.
    if (s !== undefined) built.delete(key)
    else {
      s = build(...args)
      if (built.size >= max) built.delete(built.keys().next().value!)
    }
    built.set(key, s)
    return s
  }
}

/** A string with at least one non-blank character (a pattern, which strict structured output enforces). */
export const NonBlank = (options: Record<string, unknown> = {}) => Type.String({ pattern: '\\S', ...options })

/**
 * Prose the model writes, limited to `max` characters by its description only: an answer a little over is cut
 * by `cutProse` with a warning instead of being refused (issue 15). Never for values (amounts, dates, labels).
 */
export const Prose = (max: number, options: { description?: string; nonBlank?: boolean } = {}) =>
  Type.String({
    ...(options.nonBlank ? { pattern: '\\S' } : {}),
    description: [options.description, `at most ${max} characters`].filter(Boolean).join('; '),
  })

/**
 * `s` in at most `max` characters: cut after the last sentence that fits (or, when that would lose more than
 * half, at the last word boundary) and ended with '…'. A cut adds a warning naming `field` to `warnings`.
 */
export function cutProse(s: string, max: number, field: string, warnings?: string[]): string {
  if (s.length <= max) return s
  const head = s.slice(0, max - 1)
  const sentence = Math.max(...['. ', '! ', '? ', '.\n', '!\n', '?\n'].map((end) => head.lastIndexOf(end)))
  const word = head.search(/\s\S*$/)
  const cut =
    sentence >= max / 2 ? head.slice(0, sentence + 1) : word >= max / 2 ? head.slice(0, word).trimEnd() + '…' : head.trimEnd() + '…'
  warnings?.push(`${field} was longer than ${max} characters and was shortened.`)
  return cut
}

/** `s` as a literal inside a regular expression that Ajv compiles with the `u` flag. */
export const literalPattern = (s: string): string => s.replace(/[\^$\\.*+?()[\]{}|/]/g, '\\$&')

/**
 * Text sent as is, as a pattern strict structured output enforces: not blank, no square brackets or braces (so
 * no template placeholder such as `[Your Name]` or `{{first_name}}` can be written), and containing one spelling
 * of each entry of `mustContain` (alternative spellings of one fact, e.g. an amount; at most two entries).
 */
export function SendableText(mustContain: string[][] = [], options: Record<string, unknown> = {}) {
  const free = '[^\\[\\]{}]*'
  const alt = (spellings: string[]) => `(?:${spellings.map(literalPattern).join('|')})`
  const orders = mustContain.length === 2 ? [mustContain, [...mustContain].reverse()] : [mustContain]
  const body = mustContain.length ? `(?:${orders.map((o) => o.map(alt).join(free)).join('|')})` : '[^\\[\\]{}\\s]'
  return Type.String({ pattern: `^${free}${body}${free}$`, ...options })
}

/** Text as a quote is compared: lower case, typographic quotes straightened, whitespace folded. */
export const comparableText = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim()

/** Runs of whitespace (line breaks too) as one space, trimmed; '' for null or undefined. */
export const oneLine = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim()

/** At most `max` characters: a longer string is cut, its trailing whitespace dropped and '…' appended. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1).trimEnd() + '…'
}

/** Trimmed, non-empty strings, each once (first spelling wins); case-insensitive unless `caseSensitive`. */
export function distinctTexts(items: readonly string[], opts: { caseSensitive?: boolean } = {}): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const raw of items) {
    const s = raw.trim()
    const key = opts.caseSensitive ? s : s.toLowerCase()
    if (!s || seen.has(key)) continue
    seen.add(key)
    out.push(s)
  }
  return out
}

/**
 * The days of a sequence of `steps`, as a model is asked for them: a first day, then the gaps (at least one day)
 * between each step and the one before it. Days then always increase, and the bounds keep the last one within
 * `lastDay`, so a constrained model cannot break either rule. `describe` words both fields for the model.
 */
export function DaySchedule(steps: number, days: { first: number; last: number }, describe: { firstDay: string; gapDays: string }) {
  const longestGap = Math.floor((days.last - days.first) / steps)
  return {
    firstDay: Type.Integer({ minimum: days.first, maximum: longestGap, description: describe.firstDay }),
    gapDays: Type.Array(Type.Integer({ minimum: 1, maximum: longestGap }), {
      minItems: steps - 1,
      maxItems: steps - 1,
      description: describe.gapDays,
    }),
  }
}

/** The day of each step of a `DaySchedule` answer. */
export function scheduledDays(answer: { firstDay: number; gapDays: readonly number[] }, steps: number): number[] {
  const days = [answer.firstDay]
  for (let i = 1; i < steps; i++) days.push(days[i - 1]! + answer.gapDays[i - 1]!)
  return days
}
