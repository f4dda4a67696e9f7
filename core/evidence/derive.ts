// Is a value derivable from a quote? Code reads the quote the way it reads values everywhere else
// (core/documents/checks.ts): a number or amount printed in any common form ("1.234,50 €", "$1,234.50",
// "(45.00)") supports the number it reads as; a date printed in any form supports the day it names (a slashed
// date supports both its readings); text supports a value that it contains, letters and digits compared.
import { normalizeDate, toAmount } from '../documents/checks.ts'
import { timeOf } from '../documents/values.ts'
import { folded, lettersAndDigits } from './normalize.ts'

/** Runs of digits with the separators numbers are printed with. */
const NUMBER_RUN = /\d(?:[\d.,'\u00a0\u202f]|\s(?=\d{3}(?!\d)))*/g

/** Every number `quote` can be read as showing. */
export function numbersIn(quote: string): number[] {
  const out = new Set<number>()
  for (const m of quote.matchAll(NUMBER_RUN)) {
    const token = m[0].replace(/[.,'\s\u00a0\u202f]+$/, '')
    const read = toAmount(token)
    if (read !== null) out.add(read)
    const digits = token.replace(/[^\d]/g, '')
    out.add(Number(digits)) // every separator a thousands separator
    const last = token.search(/[.,](\d{1,2})$/)
    if (last > 0) out.add(Number(`${token.slice(0, last).replace(/[^\d]/g, '')}.${token.slice(last + 1)}`))
  }
  return [...out].filter(Number.isFinite)
}

const DATE_SHAPES = [
  /\d{4}[-/.]\d{1,2}[-/.]\d{1,2}/g,
  /\d{1,2}[-/.]\d{1,2}[-/.]\d{4}/g,
  /\d{1,2}(?:st|nd|rd|th)?[\s.-]+\p{L}{3,}\.?,?[\s.-]+\d{4}/gu,
  /\p{L}{3,}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}/gu,
]

/** Every day (YYYY-MM-DD) `quote` can be read as naming. */
export function datesIn(quote: string): string[] {
  const out = new Set<string>()
  for (const shape of DATE_SHAPES) {
    for (const m of quote.matchAll(shape)) {
      const d = normalizeDate(m[0])
      if (d) out.add(d)
      // 03/04/2024 is 4 March in the US and 3 April elsewhere: the quote supports either reading.
      const slashed = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/.exec(m[0])
      if (slashed) {
        const swapped = normalizeDate(`${slashed[4]}-${slashed[3]}-${slashed[1]}`)
        const us = normalizeDate(`${slashed[4]}-${slashed[1]}-${slashed[3]}`)
        for (const x of [swapped, us]) if (x) out.add(x)
      }
    }
  }
  return [...out]
}

const TIME = /\d{1,2}\s*[:.h]\s*\d{2}(?::\d{2})?(?:\s*[ap]\.?\s*m\.?)?/gi

/** Every time of day (HH:MM) `quote` shows: "1:05 PM" and "13:05" name the same. */
export function timesIn(quote: string): string[] {
  return [...quote.matchAll(TIME)].flatMap((m) => timeOf(m[0]) ?? [])
}

const sameNumber = (a: number, b: number) => Math.abs(a - b) < 0.005

/**
 * Whether `quote` states `value`: a number (or a string that reads as one amount) among the numbers it shows,
 * sign aside (a statement prints debits unsigned, a credit note in brackets); a string contained in it (letters
 * and digits compared), or that reads as a time, a date or an amount among the ones it shows.
 */
export function derivable(value: unknown, quote: string): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && numbersIn(quote).some((n) => sameNumber(n, Math.abs(value)))
  if (typeof value === 'boolean') return true // a flag is read from the passage, not printed in it
  if (typeof value !== 'string') return false
  const s = value.trim()
  if (s === '') return false
  const text = lettersAndDigits(s)
  if (text !== '' && lettersAndDigits(quote).includes(text)) return true
  if (text === '' && folded(quote).includes(folded(s))) return true
  const time = timeOf(s) // "12.50" may be a time or an amount: either reading may support it
  if (time && timesIn(quote).includes(time)) return true
  const day = /\d/.test(s) ? normalizeDate(s) : null
  if (day) return datesIn(quote).includes(day)
  const amount = toAmount(s)
  if (amount !== null) return derivable(amount, quote)
  return false
}
