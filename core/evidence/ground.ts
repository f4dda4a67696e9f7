// Evidence for one extracted value (issue 29): the model gives a verbatim quote and a page; code looks the quote
// up in the document's own text, page by page, and checks the value is derivable from it. The page published is
// the one where code found the quote, never the model's claim; a quote code cannot find is no evidence.
import { pageTexts } from '../documents/pages.ts'
import type { ResolvedDocument } from '../documents/schema.ts'
import { oneLine } from '../models/answers.ts'
import { derivable } from './derive.ts'
import { fold, folded, type Folded } from './normalize.ts'

/** What a model says supports a value. Any of it may be missing or malformed: code reads it, never trusts it. */
export interface Support {
  quote?: unknown
  page?: unknown
  confidence?: unknown
}

export interface Evidence {
  /** 1-based page where code found the quote; null when the input has no pages (plain text) */
  page: number | null
  /** the document's own text of the passage */
  quote: string
}

export interface Grounding {
  evidence: Evidence | null
  grounded: boolean
  confidence: number
}

/** Confidence caps (docs/api.md "Evidence and confidence"). */
export const UNGROUNDED_CAP = 0.5
export const CONTRADICTED_CAP = 0.2

/** The longest quote looked up and published (a quote is a passage, not the document). */
const MAX_QUOTE = 2000

const round2 = (n: number) => Math.round(n * 100) / 100

/**
 * The rule: the model's own figure (0..1; anything else counts as 0), capped at 0.5 when code found no
 * evidence for the value and at 0.2 when code found the value wrong (a sum that does not add up, a date that
 * does not parse).
 */
export function confidenceOf(model: unknown, grounded: boolean, contradicted = false): number {
  const own = typeof model === 'number' && Number.isFinite(model) ? Math.min(1, Math.max(0, model)) : 0
  return round2(Math.min(own, grounded ? 1 : UNGROUNDED_CAP, contradicted ? CONTRADICTED_CAP : 1))
}

/** A grounding whose value code found wrong: its confidence capped lower, the evidence kept. */
export function contradicted(g: Grounding): Grounding {
  return { ...g, confidence: Math.min(g.confidence, CONTRADICTED_CAP) }
}

/**
 * The document's text in which quotes are looked up, each page folded on its first lookup: a quote found on the
 * page the model named folds that page only, so a long document's grounding does not hold the event loop for a
 * fold of every page (about 0.15 µs a character) unless a quote is missing.
 */
export class DocumentText {
  private readonly sources: readonly string[]
  private readonly folds: Array<Folded | undefined>
  private readonly paged: boolean

  /** `pages`: the text of each page (core/documents pageTexts); `paged: false` for plain text (page null). */
  constructor(pages: readonly string[], paged = true) {
    this.sources = pages
    this.folds = Array.from({ length: pages.length })
    this.paged = paged
  }

  private page(p: number): Folded {
    return (this.folds[p] ??= fold(this.sources[p]!))
  }

  /** A resolved document's text by page (an image, or a PDF without a text layer, has none: nothing is found). */
  static of(doc: ResolvedDocument): DocumentText {
    return new DocumentText(pageTexts(doc))
  }

  /** Plain text: pages at form feeds when it has them, else one passage without a page number. */
  static ofText(text: string): DocumentText {
    const pages = text.split('\f')
    return new DocumentText(pages, pages.length > 1)
  }

  /** Where the quote is: the model's page when the quote is on it, else the first page that has it. */
  find(quote: string, claimedPage?: unknown): Evidence | null {
    const needle = folded(quote.slice(0, MAX_QUOTE))
    if (needle === '') return null
    const claimed = typeof claimedPage === 'number' && Number.isInteger(claimedPage) ? claimedPage - 1 : -1
    const order = claimed >= 0 && claimed < this.sources.length ? [claimed, ...this.sources.keys()] : [...this.sources.keys()]
    for (const p of order) {
      const page = this.page(p)
      const at = page.text.indexOf(needle)
      if (at < 0) continue
      const start = page.offsets[at]!
      const last = page.offsets[at + needle.length - 1]!
      const end = last + (page.source.codePointAt(last)! > 0xffff ? 2 : 1)
      return { page: this.paged ? p + 1 : null, quote: oneLine(page.source.slice(start, end)) }
    }
    return null
  }

  /**
   * The grounding of one value: evidence when the quote is in the document and every one of `values` (the
   * model's values for the item, as it gave them; null and undefined skipped) is derivable from it. No values at
   * all: a judgement about a passage (a contract's risk flag), grounded when the passage is in the document.
   */
  ground(values: readonly unknown[], support: Support | undefined, opts: { contradicted?: boolean } = {}): Grounding {
    const quote = typeof support?.quote === 'string' ? support.quote : ''
    const stated = values.filter((v) => v !== null && v !== undefined)
    const found = quote.trim() === '' || (values.length > 0 && stated.length === 0) ? null : this.find(quote, support?.page)
    const evidence = found && stated.every((v) => derivable(v, found.quote)) ? found : null
    return { evidence, grounded: evidence !== null, confidence: confidenceOf(support?.confidence, evidence !== null, opts.contradicted) }
  }

  /**
   * Groundings of a result's single-valued fields, from the model's list of supports (one per field, the
   * first one for a field counts). `values` maps each field ("vendor.name" for a nested one) to the model's
   * value(s); a field absent from `result` (omitted as unreadable or unstated) gets none.
   */
  fields<K extends string>(
    values: Record<K, unknown>,
    supports: ReadonlyArray<Support & { field?: unknown }> | undefined,
    result: object,
  ): Partial<Record<K, Grounding>> {
    const out: Partial<Record<K, Grounding>> = {}
    for (const [field, value] of Object.entries(values) as Array<[K, unknown]>) {
      const list = Array.isArray(value) ? value : [value]
      const published = field
        .split('.')
        .reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), result)
      if (published === undefined || published === null || list.every((v) => v === null || v === undefined)) continue
      out[field] = this.ground(
        list,
        (supports ?? []).find((s) => s.field === field),
      )
    }
    return out
  }
}
