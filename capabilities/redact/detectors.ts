// Deterministic detectors for the entities code can recognise on its own (capabilities.md): emails, phone
// numbers, US SSNs and Luhn-valid card numbers. Every pattern starts with a look-behind that refuses to start
// inside a run of the same characters, so a long run costs one attempt, not one per position (no quadratic scans
// on 500,000-character inputs), and no pattern has ambiguous nested repetition.

type DetectorType = 'email' | 'phone' | 'ssn' | 'card'

export interface Span {
  type: string
  start: number
  end: number
}

// The top-level domain is letters only, so a digit right after it ends the address ("jane@example.com4111 …").
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,}(?![\p{L}-]|\.\p{L})/gu

// North American numbers with separators: (555) 123-4567, 555-123-4567, 555.123.4567, +1 555 123 4567.
const PHONE_NANP = /(?<![\p{L}\p{N}+_])(?:\+?1[\s.-]?)?(?:\(\d{3}\)[\s.-]?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\p{N}]|[.-]\p{N})/gu
// International numbers: "+" then groups split by a separator, or a part in parentheses (+44 20 7946 0958,
// +49 (0)30 123456), or "+" and 8 to 15 digits in one piece. The digit count is checked below (8..15).
const PHONE_INTL =
  /(?<![\p{L}\p{N}+_])\+\d{1,3}(?:[\s.-]?\(\d{1,5}\)[\s.-]?\d{1,8}|[\s.-]\d{1,8}){1,6}(?![\p{N}]|[.-]\p{N})|(?<![\p{L}\p{N}+_])\+\d{8,15}(?!\p{N})/gu

// 123-45-6789 or 123 45 6789 (the same separator twice), and nine bare digits right after "SSN" or
// "social security number".
const SSN = /(?<![\p{N}-])\d{3}([- ])\d{2}\1\d{4}(?![\p{N}]|-\p{N})/gu
const SSN_LABELLED = /\b(?:SSN|SS#|social\s+security(?:\s+(?:number|no\.?|#))?)[\s:#.-]{0,5}(\d{9})(?!\p{N})/giu

// A run of digits with optional single spaces or dashes between them; card numbers are found inside it.
const DIGIT_RUN = /(?<![\p{N}])\d+(?:[ -]\d+)*(?!\p{N})/gu

export function detect(text: string, types: ReadonlySet<string>): Span[] {
  const spans: Span[] = []
  const all = (
    re: RegExp,
    type: DetectorType,
    accept: (m: RegExpExecArray) => Span | null = (m) => ({ type, start: m.index, end: m.index + m[0].length }),
  ) => {
    re.lastIndex = 0
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const span = accept(m)
      if (span) spans.push(span)
    }
  }
  if (types.has('email')) all(EMAIL, 'email')
  if (types.has('phone')) {
    all(PHONE_NANP, 'phone')
    all(PHONE_INTL, 'phone', (m) => {
      const digits = m[0].replace(/\D/g, '').length
      return digits >= 8 && digits <= 15 ? { type: 'phone', start: m.index, end: m.index + m[0].length } : null
    })
  }
  if (types.has('ssn')) {
    all(SSN, 'ssn')
    all(SSN_LABELLED, 'ssn', (m) => {
      const start = m.index + m[0].length - m[1]!.length
      return { type: 'ssn', start, end: start + m[1]!.length }
    })
  }
  if (types.has('card')) {
    DIGIT_RUN.lastIndex = 0
    for (let m = DIGIT_RUN.exec(text); m; m = DIGIT_RUN.exec(text)) spans.push(...cardsIn(m[0], m.index))
  }
  return spans
}

/**
 * Luhn-valid numbers of 13 to 19 digits inside one run of digit groups: windows that start and end on group
 * boundaries, the longest valid one from each start, so "4111 1111 1111 1111 12" still yields the card and a card
 * next to an order number is not lost.
 */
function cardsIn(run: string, offset: number): Span[] {
  const groups: Array<{ start: number; end: number; digits: string }> = []
  for (const g of run.matchAll(/\d+/g)) groups.push({ start: g.index, end: g.index + g[0].length, digits: g[0] })
  const found: Span[] = []
  let from = 0
  while (from < groups.length) {
    let best: { to: number; start: number; end: number } | null = null
    let digits = ''
    for (let to = from; to < groups.length; to++) {
      digits += groups[to]!.digits
      if (digits.length > 19) break
      if (digits.length >= 13 && cardLayout(groups, from, to) && luhn(digits))
        best = { to, start: groups[from]!.start, end: groups[to]!.end }
      // Only blocks of four (or the 4-6 start of Amex/Diners) can be followed by another block of the same card.
      const n = groups[to]!.digits.length
      if (n !== 4 && !(to === from + 1 && n === 6)) break
    }
    if (best) {
      found.push({ type: 'card', start: offset + best.start, end: offset + best.end })
      from = best.to + 1
    } else from++
  }
  return found
}

/**
 * How card numbers are written: one block of digits, blocks of four (the last may be shorter, 19-digit cards end
 * in three), or the 4-6-5 / 4-6-4 layout of Amex and Diners. Dates and phone numbers next to each other
 * ("2024-01-15 2024-02-15") are not cards even when their digits pass Luhn.
 */
function cardLayout(groups: Array<{ digits: string }>, from: number, to: number): boolean {
  const sizes = groups.slice(from, to + 1).map((g) => g.digits.length)
  if (sizes.length === 1) return true
  if (sizes.join('-') === '4-6-5' || sizes.join('-') === '4-6-4') return true
  return sizes.slice(0, -1).every((n) => n === 4) && sizes.at(-1)! <= 4
}

export function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}
