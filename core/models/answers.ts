// Pieces for asking a model for structured output and for tidying what it answers, shared by capabilities.
import { Type, type TUnsafe } from '@sinclair/typebox'

/**
 * A string enum as `{type: 'string', enum}`: the form providers' strict structured-output modes accept (TypeBox's
 * union of literals becomes `anyOf`). `options` adds keywords such as `description`.
 */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })

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
